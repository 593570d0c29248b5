#!/usr/bin/env node
import { setHeapOptions } from './app/v8_heap.js';

setHeapOptions();
const { runCli, EXIT } = await import('./app/run.js');
let status: number;
try {
  status = await runCli(process.argv.slice(2), {
    stdin: process.stdin,
    stdout: process.stdout,
    stderr: process.stderr,
    env: process.env,
    cwd: process.cwd(),
    signals: process,
  });
} catch (error) {
  process.stderr.write(`holdfast: unexpected failure: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  status = EXIT.failure;
}
// The program is over once runCli returns: what a library left running (discord.js retries a gateway it was told to stop) must not keep the process alive.
await Promise.all([process.stdout, process.stderr].map((stream) => new Promise<void>((resolve) => stream.write('', () => resolve()))));
process.exit(status);
