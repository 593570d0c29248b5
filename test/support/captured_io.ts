import { Readable, Writable } from 'node:stream';
import type { CliIo } from '../../src/app/run.js';

/** The program's io with no input, keeping what it writes to stdout and stderr; `isTTY` marks stderr a terminal, as when a person starts it in one. */
export function capturedIo(cwd: string, options: { readonly env?: Record<string, string>; readonly isTTY?: boolean } = {}): { io: CliIo; stdout: () => string; stderr: () => string } {
  const out: string[] = [];
  const err: string[] = [];
  const stderr = Object.assign(
    new Writable({
      write(chunk: Buffer, _encoding, done) {
        err.push(chunk.toString('utf8'));
        done();
      },
    }),
    { isTTY: options.isTTY ?? false },
  );
  return { io: { stdin: Readable.from([]), stdout: { write: (text: string) => out.push(text) }, stderr, env: options.env ?? {}, cwd }, stdout: () => out.join(''), stderr: () => err.join('') };
}
