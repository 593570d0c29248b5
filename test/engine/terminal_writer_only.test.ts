import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = new URL('../../src/', import.meta.url).pathname;

/** Calls that change a turn's status: only the terminal writer may make them (DESIGN §8). */
const STATUS_CHANGES = /\.(finish|complete|suspend|rejectSuspended|awaitResolution)\(/g;

/** The one writer; the store itself (src/turn_state) implements the calls. */
const WRITER = 'engine/terminal_writer.ts';

/** The start of an object's method `name: (…) =>` or `name: async (…) =>`. */
const METHOD_START = /\b(\w+): (?:async )?\(/g;

/**
 * The status-changing calls of `source` that are not a wrapper passing the same call on: a
 * decorator of the store (metrics, durability) may call `store.finish(` inside its own `finish:`.
 */
function statusChangesIn(source: string): string[] {
  const found: string[] = [];
  for (const call of source.matchAll(STATUS_CHANGES)) {
    const before = source.slice(0, call.index);
    const enclosing = [...before.matchAll(METHOD_START)].at(-1)?.[1];
    if (enclosing !== call[1]) found.push(call[1] ?? '');
  }
  return found;
}

describe('one terminal writer', () => {
  it('is the only module outside the store that changes a turn’s status; the others only pass the same call on', () => {
    const offenders = readdirSync(SRC, { recursive: true, encoding: 'utf8' })
      .filter((file) => file.endsWith('.ts') && file !== WRITER && !file.startsWith('turn_state/'))
      .flatMap((file) => statusChangesIn(readFileSync(join(SRC, file), 'utf8')).map((call) => `${file}: ${call}`));
    expect(offenders).toEqual([]);
    expect(statusChangesIn(readFileSync(join(SRC, WRITER), 'utf8')).length).toBeGreaterThan(0);
  });

  it('would notice a module that did, and lets a wrapper pass the same call on', () => {
    expect(statusChangesIn('async function end() { await durability.finish("TERMINAL_COMPLETED"); }')).toEqual(['finish']);
    expect(statusChangesIn('const x = { heartbeat: (lease) => store.suspend(lease, reason) };')).toEqual(['suspend']);
    expect(statusChangesIn('const x = { complete: async (lease, reply) => {\n  await timed(() => store.complete(lease, reply));\n} };')).toEqual([]);
  });
});
