import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';

/** Builds dist/ once before the suite, so tests that run the real program run the current code. */
export default function buildOnce(): void {
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  execFileSync(process.execPath, [tsc, '-p', 'tsconfig.build.json'], { stdio: 'inherit' });
}
