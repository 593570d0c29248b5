import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** The built program, as `npm start` and the `holdfast` bin run it. */
export const PROGRAM = fileURLToPath(new URL('../../dist/main.js', import.meta.url));

export interface ProgramRun {
  readonly status: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs the real program as a child process and collects what it printed and how it exited. */
export function runProgram(args: readonly string[], options: { cwd: string; env?: NodeJS.ProcessEnv }): Promise<ProgramRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [PROGRAM, ...args], {
      cwd: options.cwd,
      env: options.env ?? { PATH: process.env['PATH'] },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (status) => resolve({ status, stdout, stderr }));
  });
}
