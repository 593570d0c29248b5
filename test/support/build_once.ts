import { execFileSync } from 'node:child_process';

/**
 * Builds dist/ once before the suite, so tests that run the real program run the current code.
 * HOLDFAST_SKIP_BUILD=1 skips it when iterating on tests that do not start the program.
 */
export default function buildOnce(): void {
  if (process.env['HOLDFAST_SKIP_BUILD'] === '1') return;
  execFileSync(process.execPath, ['--import', 'tsx', 'scripts/build.ts'], { stdio: 'inherit' });
}
