#!/usr/bin/env node
import { runCli, EXIT } from './app/run.js';

try {
  process.exitCode = await runCli(process.argv.slice(2), {
    stdin: process.stdin,
    stdout: process.stdout,
    stderr: process.stderr,
    env: process.env,
    cwd: process.cwd(),
    signals: process,
  });
} catch (error) {
  process.stderr.write(`holdfast: unexpected failure: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = EXIT.failure;
}
