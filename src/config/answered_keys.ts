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

/**
 * The settings of llmcord's config.yaml, each with the Holdfast setting that takes its place: a
 * configuration brought over from llmcord is answered key by key with what to write instead.
 */
const LLMCORD_KEYS: Readonly<Record<string, string>> = {
  bot_token: 'Holdfast reads the token from `discord.token` (usually `token: ${DISCORD_TOKEN}`)',
  client_id: 'Holdfast needs no client id: it logs the invite URL at start, from the token — delete this key',
  status_message: 'Holdfast reads it from `discord.status_message`',
  max_text: 'Holdfast limits a message with `chat.max_message_chars` and a text attachment with `discord.max_text_attachment_kb`',
  max_images: 'Holdfast sends every image attachment up to `discord.max_attachment_mb` when `llm.vision` is true — delete this key',
  max_messages: 'Holdfast sends a channel’s history up to `chat.history_max_chars` characters, older messages dropped or summarised (`chat.compaction`)',
  use_plain_responses: 'Holdfast always answers in plain messages — delete this key',
  allow_dms: 'Holdfast reads it from `access.allow_dms`',
  'permissions.users': 'Holdfast reads `allowed_ids` and `blocked_ids` from `access.users.allow` and `access.users.deny`, and `admin_ids` from `permissions.admins`',
  'permissions.roles': 'Holdfast reads `allowed_ids` and `blocked_ids` from `access.roles.allow` and `access.roles.deny`',
  'permissions.channels': 'Holdfast reads `allowed_ids` and `blocked_ids` from `access.channels.allow` and `access.channels.deny`',
  providers: 'Holdfast takes one model in `llm` (`provider`, `base_url`, `api_key`) and more in `llm.fallbacks`',
  models: 'Holdfast names the model in `llm.model`, and the next ones in `llm.fallbacks` (each with its `model`)',
  system_prompt: 'Holdfast reads it from `chat.system_prompt`',
};

/** A key this program does not take but knows, and what to write instead. */
export interface AnsweredKey {
  readonly kind: 'removed_key' | 'llmcord_key';
  readonly message: string;
}

/** What to write instead of a key an earlier version or llmcord had; `undefined` for a key this program never heard of. */
export function answeredKey(path: KeyPath): AnsweredKey | undefined {
  const key = formatKeyPath(path);
  const removed = REMOVED_KEYS[key];
  if (removed !== undefined) return { kind: 'removed_key', message: removed };
  const llmcord = LLMCORD_KEYS[key];
  return llmcord === undefined ? undefined : { kind: 'llmcord_key', message: `an llmcord setting: ${llmcord}` };
}
