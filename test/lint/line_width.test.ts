import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = new URL('../../', import.meta.url).pathname;
const FOLDERS = ['src', 'test', 'scripts'];

/** The formatter's line width (.prettierrc.json): prettier breaks code to it, but leaves a long string or comment as it is. */
const WIDTH = (JSON.parse(readFileSync(join(ROOT, '.prettierrc.json'), 'utf8')) as { printWidth: number }).printWidth;

/** The lines of `text` wider than `width`, as `line N (W characters)`. */
function tooWide(text: string, width: number): string[] {
  return text.split('\n').flatMap((line, index) => (line.length > width ? [`line ${index + 1} (${line.length} characters)`] : []));
}

describe('the shape of the source', () => {
  it(`has no line wider than the formatter's ${WIDTH} characters, strings and comments included`, () => {
    const wide = FOLDERS.flatMap((folder) =>
      readdirSync(join(ROOT, folder), { recursive: true, encoding: 'utf8' })
        .filter((file) => /\.(ts|js|mjs)$/.test(file))
        .flatMap((file) => tooWide(readFileSync(join(ROOT, folder, file), 'utf8'), WIDTH).map((where) => `${folder}/${file}: ${where}`)),
    );
    expect(wide).toEqual([]);
  });

  it('would notice a line one character too wide', () => {
    expect(tooWide(`short\n${'x'.repeat(WIDTH + 1)}\n${'y'.repeat(WIDTH)}`, WIDTH)).toEqual([`line 2 (${WIDTH + 1} characters)`]);
  });
});
