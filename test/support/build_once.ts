import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';

/**
 * Builds dist/ once before the suite, so tests that run the real program run the current code.
 * HOLDFAST_SKIP_BUILD=1 skips it when iterating on tests that do not start the program.
 */
export default function buildOnce(): void {
  if (process.env['HOLDFAST_SKIP_BUILD'] === '1') return;
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  execFileSync(process.execPath, [tsc, '-b', 'tsconfig.build.json'], { stdio: 'inherit' });
}
