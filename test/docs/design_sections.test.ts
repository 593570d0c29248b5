import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DURABLE_POINTS, FAULT_POINTS } from '../../src/engine/fault_points.js';

const ROOT = new URL('../../', import.meta.url).pathname;
const DESIGN = readFileSync(join(ROOT, 'docs/DESIGN.md'), 'utf8');

/** A citation of the design in code: `DESIGN §7.3`, `DESIGN §10`. */
const CITATION = /DESIGN §(\d+(?:\.\d+)*)/g;
/** A numbered section heading: `## 7. Turn store`, `### 7.3 The write invariant`. */
const HEADING = /^#{2,3} (\d+(?:\.\d+)*)[. ]/gm;
/** A row of the durable-point table: `` | `after_wi1` | intent recorded | … | ``. */
const DURABLE_ROW = /^\|\s*`(after_wi\d+)`\s*\|\s*([^|]*?)\s*\|/gm;

/** The source files that may cite the design: .ts and .js under src/, test/ and scripts/, and the root lint configs. */
function citingFiles(): string[] {
  const walked = ['src', 'test', 'scripts'].flatMap((folder) =>
    readdirSync(join(ROOT, folder), { recursive: true, encoding: 'utf8' })
      .filter((file) => /\.(ts|js)$/.test(file))
      .map((file) => join(folder, file)),
  );
  const lintConfigs = readdirSync(ROOT).filter((file) => /^eslint.*\.js$/.test(file));
  return [...walked, ...lintConfigs].sort();
}

/** Each section cited, with the first file (in path order) that cites it. */
function citations(): Map<string, string> {
  const cited = new Map<string, string>();
  for (const file of citingFiles()) {
    for (const [, section] of readFileSync(join(ROOT, file), 'utf8').matchAll(CITATION)) {
      if (section !== undefined && !cited.has(section)) cited.set(section, file);
    }
  }
  return cited;
}

/** The section numbers docs/DESIGN.md has a heading for. */
function headings(): Set<string> {
  return new Set([...DESIGN.matchAll(HEADING)].flatMap(([, section]) => (section === undefined ? [] : [section])));
}

/** The text of one section of docs/DESIGN.md, from its heading to the next heading of level 2 or 3. */
function sectionText(section: string): string {
  const start = DESIGN.search(new RegExp(`^#{2,3} ${section.replaceAll('.', '\\.')}[. ]`, 'm'));
  if (start < 0) return '';
  const body = DESIGN.indexOf('\n', start) + 1;
  const rest = DESIGN.slice(body);
  const next = rest.search(/^#{2,3} /m);
  return next < 0 ? rest : rest.slice(0, next);
}

describe('docs/DESIGN.md', () => {
  it('has a heading for every section the code, the tests and the lint configs cite', () => {
    const cited = citations();
    expect(cited.size).toBeGreaterThan(0);
    const present = headings();
    const missing = [...cited].filter(([section]) => !present.has(section)).map(([section, file]) => `§${section}, cited in ${file}`);
    expect(missing, 'sections cited as DESIGN §n with no heading in docs/DESIGN.md').toEqual([]);
  });

  it('names each durable point of a step in the §7.3 fault-point table as the code does', () => {
    const table = sectionText('7.3');
    expect(table).toMatch(/^\|\s*Fault point\s*\|\s*Durable point\s*\|\s*What is durable\s*\|/m);
    const rows = [...table.matchAll(DURABLE_ROW)].map(([, point, name]) => [point, name]);
    expect(rows, 'one row per after_wiN fault point, in order, with the name DURABLE_POINTS gives it').toEqual(Object.entries(DURABLE_POINTS));
  });

  it('says in §7.3 where every fault point of the engine is', () => {
    const text = sectionText('7.3');
    const unnamed = FAULT_POINTS.filter((point) => !text.includes(`\`${point}\``));
    expect(unnamed, 'fault points not named in DESIGN §7.3').toEqual([]);
  });
});
