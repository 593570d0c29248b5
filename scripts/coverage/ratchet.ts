import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';

/** Per-file coverage the ratchet watches, in percent. */
export interface FileCoverage {
  readonly lines: number;
  readonly branches: number;
}

/** coverage-baseline.json: repository-relative path → the coverage it must keep. */
export type Baseline = Readonly<Record<string, FileCoverage>>;

export type RatchetProblemKind = 'dropped' | 'no_baseline' | 'not_measured' | 'stale_baseline';

export interface RatchetProblem {
  readonly kind: RatchetProblemKind;
  readonly file: string;
  readonly message: string;
}

/** How far a file may fall below its baseline, in percentage points, before the ratchet fails. */
export const TOLERANCE_POINTS = 0.5;

export const BASELINE_FILE = 'coverage-baseline.json';
export const SUMMARY_FILE = join('coverage', 'coverage-summary.json');

interface SummaryMetric {
  readonly pct: number | string;
}

type Summary = Readonly<Record<string, { readonly lines: SummaryMetric; readonly branches: SummaryMetric }>>;

/** Every TypeScript source file under `src/`, as sorted repository-relative POSIX paths. */
export function listSourceFiles(root: string): string[] {
  const dir = join(root, 'src');
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.ts') && !file.endsWith('.d.ts'))
    .map((file) => toPosix(join('src', file)))
    .sort();
}

/** Vitest's json-summary, keyed by repository-relative POSIX path; a metric with nothing to count is 100. */
export function readCoverageSummary(root: string): Map<string, FileCoverage> {
  const summary = JSON.parse(readFileSync(join(root, SUMMARY_FILE), 'utf8')) as Summary;
  const out = new Map<string, FileCoverage>();
  for (const [file, metrics] of Object.entries(summary)) {
    if (file === 'total') continue;
    out.set(toPosix(relative(root, file)), { lines: percent(metrics.lines), branches: percent(metrics.branches) });
  }
  return out;
}

/** The checked-in baseline, or an empty one when the file does not exist yet. */
export function readBaseline(root: string): Baseline {
  const path = join(root, BASELINE_FILE);
  return existsSync(path) ? (JSON.parse(readFileSync(path, 'utf8')) as Baseline) : {};
}

/** Every way the current coverage breaks the baseline; empty when the ratchet holds. */
export function checkRatchet(baseline: Baseline, current: ReadonlyMap<string, FileCoverage>, sourceFiles: readonly string[]): RatchetProblem[] {
  const problems: RatchetProblem[] = [];
  for (const file of sourceFiles) {
    const now = current.get(file);
    const before = baseline[file];
    if (now === undefined) {
      problems.push({ kind: 'not_measured', file, message: 'has no entry in the coverage summary (is it in vitest coverage.include?)' });
    } else if (before === undefined) {
      problems.push({ kind: 'no_baseline', file, message: 'has no baseline entry: add tests, then run npm run coverage:update' });
    } else {
      for (const metric of ['lines', 'branches'] as const) {
        if (now[metric] < before[metric] - TOLERANCE_POINTS) {
          problems.push({ kind: 'dropped', file, message: `${metric} coverage fell from ${before[metric]}% to ${now[metric]}%` });
        }
      }
    }
  }
  const sources = new Set(sourceFiles);
  for (const file of Object.keys(baseline)) {
    if (!sources.has(file)) problems.push({ kind: 'stale_baseline', file, message: 'is in the baseline but no longer exists: run npm run coverage:update' });
  }
  return problems;
}

/** The baseline that records the current coverage of every source file. */
export function nextBaseline(current: ReadonlyMap<string, FileCoverage>, sourceFiles: readonly string[]): Baseline {
  return Object.fromEntries(sourceFiles.flatMap((file) => {
    const now = current.get(file);
    return now === undefined ? [] : [[file, now]];
  }));
}

/** Writes `baseline` as coverage-baseline.json, sorted, one file a line pair. */
export function writeBaseline(root: string, baseline: Baseline): void {
  const sorted = Object.fromEntries(Object.entries(baseline).sort(([a], [b]) => a.localeCompare(b)));
  writeFileSync(join(root, BASELINE_FILE), `${JSON.stringify(sorted, null, 2)}\n`);
}

/** Where the ratchet reports. */
export interface RatchetOutput {
  info(line: string): void;
  error(line: string): void;
}

/**
 * `check`: fails when a file under src/ has lost coverage against coverage-baseline.json or has no
 * entry there. `update`: records the current coverage as the new baseline.
 */
export function runRatchet(mode: string | undefined, root: string, out: RatchetOutput): number {
  if (mode !== 'check' && mode !== 'update') {
    out.error('usage: coverage-ratchet check|update');
    return 2;
  }
  if (!existsSync(join(root, SUMMARY_FILE))) {
    out.error(`coverage ratchet: ${SUMMARY_FILE} does not exist: run the tests with coverage first (npm run test:unit)`);
    return 1;
  }
  const sources = listSourceFiles(root);
  const current = readCoverageSummary(root);
  if (mode === 'update') {
    const baseline = nextBaseline(current, sources);
    writeBaseline(root, baseline);
    out.info(`coverage ratchet: baseline written for ${Object.keys(baseline).length} files`);
    return 0;
  }
  const problems = checkRatchet(readBaseline(root), current, sources);
  for (const problem of problems) out.error(`coverage ratchet: ${problem.file} ${problem.message}`);
  if (problems.length > 0) return 1;
  out.info(`coverage ratchet: ${sources.length} files hold their baseline`);
  return 0;
}

function percent(metric: SummaryMetric): number {
  return typeof metric.pct === 'number' ? metric.pct : 100;
}

function toPosix(path: string): string {
  return path.split(sep).join('/');
}
