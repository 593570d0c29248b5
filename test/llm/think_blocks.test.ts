import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ThinkBlocks, type SplitText } from '../../src/llm/think_blocks.js';

/** `pieces` fed one by one, then the end: everything reasoned and answered. */
function fed(pieces: readonly string[]): SplitText {
  const blocks = new ThinkBlocks();
  let reasoning = '';
  let text = '';
  for (const split of [...pieces.map((piece) => blocks.push(piece)), blocks.end()]) {
    reasoning += split.reasoning;
    text += split.text;
  }
  return { reasoning, text };
}

/** `whole` cut at the given places. */
function cut(whole: string, places: readonly number[]): string[] {
  const sorted = [...new Set(places.map((place) => place % (whole.length + 1)))].sort((a, b) => a - b);
  return [...sorted, whole.length].map((end, index) => whole.slice(index === 0 ? 0 : sorted[index - 1], end));
}

describe('ThinkBlocks', () => {
  it('takes a leading block out of the answer, with the whitespace after it', () => {
    expect(fed(['<think>\nplan it\n</think>\n\nHello.'])).toEqual({ reasoning: '\nplan it\n', text: 'Hello.' });
  });

  it('takes several leading blocks, and whitespace before the first', () => {
    expect(fed(['\n <think>a</think> <think>b</think>\nHi'])).toEqual({ reasoning: 'ab', text: 'Hi' });
  });

  it('leaves a <think> that the answer writes after its first word', () => {
    expect(fed(['Use ', '<think>', ' tags.'])).toEqual({ reasoning: '', text: 'Use <think> tags.' });
  });

  it('shows nothing of a tag until it is whole, then nothing of the block', () => {
    const blocks = new ThinkBlocks();
    expect(blocks.push('<th')).toEqual({ reasoning: '', text: '' });
    expect(blocks.push('ink>plan</thi')).toEqual({ reasoning: 'plan', text: '' });
    expect(blocks.push('nk>Hel')).toEqual({ reasoning: '', text: 'Hel' });
  });

  it('gives back what only looked like a tag: text that began like one, an unfinished block as reasoning', () => {
    expect(fed(['<thi'])).toEqual({ reasoning: '', text: '<thi' });
    expect(fed(['<b>bold</b>'])).toEqual({ reasoning: '', text: '<b>bold</b>' });
    expect(fed(['<think>cut off mid-tho', 'ught </thi'])).toEqual({ reasoning: 'cut off mid-thought </thi', text: '' });
    expect(fed(['  '])).toEqual({ reasoning: '', text: '' });
  });

  it('reads a stream the same however it is cut into pieces', () => {
    const word = fc.constantFrom('<think>', '</think>', '<', '>', '</', 'think', ' ', '\n', 'a', 'Hello.', '<b>');
    fc.assert(
      fc.property(
        fc.array(word, { maxLength: 14 }).map((words) => words.join('')),
        fc.array(fc.nat(), { maxLength: 8 }),
        (whole, places) => {
          expect(fed(cut(whole, places))).toEqual(fed([whole]));
        },
      ),
    );
  });
});
