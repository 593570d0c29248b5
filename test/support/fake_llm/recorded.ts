import { readFileSync } from 'node:fs';
import type { FakeStep } from './server.js';

/** The frames of a recorded stream in test/fixtures/streams/, each with its blank line, in the order the server sent them. */
export function recordedFrames(name: string): string[] {
  const text = readFileSync(new URL(`../../fixtures/streams/${name}`, import.meta.url), 'utf8');
  return text
    .split('\n\n')
    .filter((frame) => frame.trim() !== '')
    .map((frame) => `${frame}\n\n`);
}

/**
 * A recorded stream served as the server sent it, one frame per write; `hold` (with `after`, a
 * count of frames) holds the rest back until it resolves, as a model that reasons for a while.
 */
export function recordedStream(name: string, hold?: { readonly after: number; readonly until: Promise<void> }): Extract<FakeStep, { kind: 'stream' }> {
  const frames = recordedFrames(name);
  if (hold === undefined) return { kind: 'stream', chunks: frames };
  return { kind: 'stream', chunks: [...frames.slice(0, hold.after), hold.until, ...frames.slice(hold.after)] };
}
