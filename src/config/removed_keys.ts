import { formatKeyPath, type KeyPath } from './problems.js';

/**
 * Keys that earlier versions knew and this one no longer does, each with what became of it: a
 * configuration that still sets one is refused with that explanation, not just "unknown key".
 */
const REMOVED_KEYS: Readonly<Record<string, string>> = {
  'chat.history_db_path':
    'removed; conversation history now lives in the one store file turn_state.db_path (an old file at ' +
    'data/history/history.sqlite3 is imported at the next start; move a file kept elsewhere there first) — delete ' +
    'this key',
  'tools.memory.db_path':
    'removed; memory notes now live in the one store file turn_state.db_path (an old file at ' +
    'data/memory/memory.sqlite3 is imported at the next start; move a file kept elsewhere there first) — delete ' +
    'this key',
};

/** What became of a key this version no longer knows; `undefined` for a key it never knew. */
export function removedKeyExplanation(path: KeyPath): string | undefined {
  return REMOVED_KEYS[formatKeyPath(path)];
}
