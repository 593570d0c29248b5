import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runRatchet, TOLERANCE_POINTS } from '../../scripts/coverage/ratchet.js';
import { useTempDir } from '../support/temp_dir.js';

type Coverage = Record<string, { lines: number | string; branches: number | string }>;

describe('the coverage ratchet', () => {
  const temp = useTempDir();

  /** A project root with the given source files, coverage summary and (optionally) baseline. */
  function project(files: string[], coverage: Coverage, baseline?: Record<string, { lines: number; branches: number }>): string {
    const root = temp.path();
    for (const file of files) {
      mkdirSync(join(root, file, '..'), { recursive: true });
      writeFileSync(join(root, file), 'export {};\n');
    }
    const summary: Record<string, unknown> = { total: { lines: { pct: 0 }, branches: { pct: 0 } } };
    for (const [file, pct] of Object.entries(coverage)) summary[join(root, file)] = { lines: { pct: pct.lines }, branches: { pct: pct.branches } };
    mkdirSync(join(root, 'coverage'), { recursive: true });
    writeFileSync(join(root, 'coverage', 'coverage-summary.json'), JSON.stringify(summary));
    if (baseline !== undefined) writeFileSync(join(root, 'coverage-baseline.json'), JSON.stringify(baseline));
    return root;
  }

  function run(mode: string, root: string): { status: number; info: string[]; errors: string[] } {
    const info: string[] = [];
    const errors: string[] = [];
    const status = runRatchet(mode, root, { info: (line) => info.push(line), error: (line) => errors.push(line) });
    return { status, info, errors };
  }

  it('passes when coverage rises or stays within the tolerance', () => {
    const root = project(
      ['src/a.ts', 'src/core/b.ts'],
      { 'src/a.ts': { lines: 95, branches: 90 }, 'src/core/b.ts': { lines: 79.6, branches: 60 } },
      {
        'src/a.ts': { lines: 90, branches: 80 },
        'src/core/b.ts': { lines: 80, branches: 60 },
      },
    );
    expect(run('check', root)).toEqual({ status: 0, info: ['coverage ratchet: 2 files hold their baseline'], errors: [] });
  });

  it('fails when a file drops more than the tolerance below its baseline, naming the file and metric', () => {
    const root = project(['src/a.ts'], { 'src/a.ts': { lines: 90 - TOLERANCE_POINTS - 0.01, branches: 50 } }, { 'src/a.ts': { lines: 90, branches: 75 } });
    expect(run('check', root)).toEqual({
      status: 1,
      info: [],
      errors: ['coverage ratchet: src/a.ts lines coverage fell from 90% to 89.49%', 'coverage ratchet: src/a.ts branches coverage fell from 75% to 50%'],
    });
  });

  it('fails when a file under src/ has no baseline entry', () => {
    const root = project(['src/a.ts', 'src/new.ts'], { 'src/a.ts': { lines: 100, branches: 100 }, 'src/new.ts': { lines: 100, branches: 100 } }, { 'src/a.ts': { lines: 100, branches: 100 } });
    expect(run('check', root)).toMatchObject({ status: 1, errors: ['coverage ratchet: src/new.ts has no baseline entry: add tests, then run npm run coverage:update'] });
  });

  it('fails when a source file is missing from the coverage summary, or a baseline entry has no file', () => {
    const root = project(
      ['src/a.ts', 'src/unmeasured.ts'],
      { 'src/a.ts': { lines: 100, branches: 100 } },
      {
        'src/a.ts': { lines: 100, branches: 100 },
        'src/unmeasured.ts': { lines: 0, branches: 0 },
        'src/deleted.ts': { lines: 100, branches: 100 },
      },
    );
    expect(run('check', root)).toMatchObject({
      status: 1,
      errors: [
        'coverage ratchet: src/unmeasured.ts has no entry in the coverage summary (is it in vitest coverage.include?)',
        'coverage ratchet: src/deleted.ts is in the baseline but no longer exists: run npm run coverage:update',
      ],
    });
  });

  it('rewrites the baseline from the current coverage on update, counting a file with nothing to cover as 100%', () => {
    const root = project(
      ['src/z.ts', 'src/a.ts', 'src/types.ts'],
      {
        'src/z.ts': { lines: 50, branches: 25 },
        'src/a.ts': { lines: 75.5, branches: 100 },
        'src/types.ts': { lines: 'Unknown', branches: 'Unknown' },
      },
      { 'src/gone.ts': { lines: 1, branches: 1 } },
    );
    expect(run('update', root)).toEqual({ status: 0, info: ['coverage ratchet: baseline written for 3 files'], errors: [] });
    const written = readFileSync(join(root, 'coverage-baseline.json'), 'utf8');
    expect(JSON.parse(written)).toEqual({
      'src/a.ts': { lines: 75.5, branches: 100 },
      'src/types.ts': { lines: 100, branches: 100 },
      'src/z.ts': { lines: 50, branches: 25 },
    });
    expect(Object.keys(JSON.parse(written) as object)).toEqual(['src/a.ts', 'src/types.ts', 'src/z.ts']);
    expect(run('check', root).status).toBe(0);
  });

  it('explains a missing coverage summary and a wrong mode instead of crashing', () => {
    const root = temp.path();
    expect(run('check', root)).toEqual({
      status: 1,
      info: [],
      errors: [`coverage ratchet: ${join('coverage', 'coverage-summary.json')} does not exist: run the tests with coverage first (npm run test:unit)`],
    });
    expect(run('verify', root)).toEqual({ status: 2, info: [], errors: ['usage: coverage-ratchet check|update'] });
  });
});
