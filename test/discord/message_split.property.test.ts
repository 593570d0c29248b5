import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { splitMessage } from '../../src/discord/message_split.js';

// A fixed seed keeps every run (and so the coverage ratchet) reproducible; change it to explore further.
const RUNS = { numRuns: 400, seed: 20_261_202 };

/** A line of code of `width` characters: words and punctuation, sometimes no space at all. */
const codeLine = (maxWidth: number): fc.Arbitrary<string> =>
  fc.oneof(
    fc.integer({ min: 0, max: maxWidth }).map((width) => 'x'.repeat(width)),
    fc.array(fc.constantFrom('let', 'x', '=', '42;', '//', 'milk', '(a,', 'b)', '{', '}', 'return'), { maxLength: Math.ceil(maxWidth / 3) }).map((words) => words.join(' ')),
  );

/** A fence that opens a block: with or without a language, sometimes indented. */
const openingFence = fc.tuple(fc.constantFrom('', '  ', '\t'), fc.constantFrom('', 'ts', 'python', 'a-very-long-language-name')).map(([indent, language]) => `${indent}\`\`\`${language}`);

/** Prose around the blocks: sentences, long words, blank lines. */
const prose = fc.array(
  fc.oneof(
    fc.constant(''),
    fc.lorem({ maxCount: 30, mode: 'sentences' }),
    fc.integer({ min: 1, max: 300 }).map((width) => 'w'.repeat(width)),
  ),
  { maxLength: 6 },
);

/**
 * A reply of prose and code blocks, at least one of them longer than `limit`: lines of varied
 * widths (some longer than a whole message), a block sometimes left open to the end.
 */
function replyOver(limit: number): fc.Arbitrary<string> {
  const block = fc
    .tuple(openingFence, fc.array(codeLine(Math.floor(limit * 1.5)), { minLength: 1, maxLength: 80 }), fc.boolean())
    .map(([open, lines, closed]) => [open, ...lines, ...(closed ? ['```'] : [])].join('\n'));
  const longBlock = block.filter((text) => text.length > limit);
  return fc
    .tuple(
      prose,
      fc.array(
        fc.oneof(
          block,
          prose.map((lines) => lines.join('\n')),
        ),
        { maxLength: 4 },
      ),
      longBlock,
      prose,
    )
    .map(([before, middle, long, after]) => [...before, ...middle, long, ...after].join('\n'));
}

/** How many fences a message opens and closes, read line by line as Discord renders them. */
function fencesBalance(message: string): boolean {
  let open = false;
  for (const line of message.split('\n')) if (/^\s*```/.test(line)) open = !open;
  return !open;
}

describe('splitMessage, over code blocks longer than one message', () => {
  it('keeps every part within the limit and every part’s fences balanced, whatever the line widths and the limit', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 80, max: 2000 }).chain((limit) => fc.tuple(fc.constant(limit), replyOver(limit))),
        ([limit, text]) => {
          const parts = splitMessage(text, limit);
          expect(parts.length).toBeGreaterThan(1);
          for (const part of parts) {
            expect(part.length, part).toBeLessThanOrEqual(limit);
            expect(fencesBalance(part), part).toBe(true);
          }
        },
      ),
      RUNS,
    );
  });

  it('counts the closing fence of a block cut at a break: lines that fill a message to 2,000 characters never make a part of 2,004', () => {
    // "```", then lines that reach exactly 2,000 characters with the opening fence: the closing one must move them on.
    const text = ['```', 'a'.repeat(996), 'b'.repeat(999), 'c'.repeat(995), 'd'.repeat(1000), '```'].join('\n');
    const parts = splitMessage(text, 2000);
    for (const part of parts) expect(part.length).toBeLessThanOrEqual(2000);
    expect(parts.every(fencesBalance)).toBe(true);
    expect(parts.flatMap((part) => part.split('\n').filter((line) => !line.startsWith('```')))).toEqual(text.split('\n').slice(1, -1));
  });
});
