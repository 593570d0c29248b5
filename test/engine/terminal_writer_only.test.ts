import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = new URL('../../src/', import.meta.url).pathname;

/** Calls that change a turn's status: only the terminal writer may make them (DESIGN §8). */
const STATUS_CHANGES = /\.(finish|complete|suspend|rejectSuspended|awaitResolution)\(/;

/** Where they may appear: the stores that implement them, the wrappers and the port that forward them, and the one writer. */
const ALLOWED = new Set([
  'engine/terminal_writer.ts',
  'engine/durability.ts',
  'turn_state/sqlite/sqlite_turn_store.ts',
  'turn_state/redacting_stores.ts',
  'turn_state/turn_store.ts',
  'app/metrics/metered_turn_store.ts',
]);

describe('one terminal writer', () => {
  it('is the only module outside the store that changes a turn’s status', () => {
    const offenders = readdirSync(SRC, { recursive: true, encoding: 'utf8' })
      .filter((file) => file.endsWith('.ts') && !ALLOWED.has(file))
      .filter((file) => STATUS_CHANGES.test(readFileSync(join(SRC, file), 'utf8')));
    expect(offenders).toEqual([]);
  });

  it('would notice a module that did', () => {
    expect(STATUS_CHANGES.test('await durability.finish("TERMINAL_COMPLETED")')).toBe(true);
    expect(STATUS_CHANGES.test('await store.suspend(lease, reason)')).toBe(true);
    expect(STATUS_CHANGES.test('await store.complete(lease, reply)')).toBe(true);
  });
});
