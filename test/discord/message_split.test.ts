import { describe, expect, it } from 'vitest';
import { DISCORD_MESSAGE_LIMIT, splitMessage } from '../../src/discord/message_split.js';

const fenceCount = (text: string): number => (text.match(/```/g) ?? []).length;

/** Lines of prose joined by newlines, cut to exactly `length` characters (not ending in a space or a break). */
function linesOfLength(length: number): string {
  const text = Array.from({ length: 100 }, (_, i) => `Line ${String(i).padStart(2, '0')}: milk is a drink that people pour into their tea.`)
    .join('\n')
    .slice(0, length);
  expect(text).toHaveLength(length);
  expect(text).toMatch(/\S$/);
  return text;
}

describe('splitMessage', () => {
  it('keeps a reply that fits as one message', () => {
    expect(splitMessage('Hello.')).toEqual(['Hello.']);
    expect(splitMessage('x'.repeat(DISCORD_MESSAGE_LIMIT))).toHaveLength(1);
  });

  it("keeps exactly 2,000 characters, Discord's limit, as one message, unchanged", () => {
    expect(DISCORD_MESSAGE_LIMIT).toBe(2000);
    for (const text of ['x'.repeat(2000), linesOfLength(2000)]) expect(splitMessage(text)).toEqual([text]);
  });

  it('splits 2,001 characters into two messages of at most 2,000, losing nothing', () => {
    const lines = linesOfLength(2001);
    const parts = splitMessage(lines);
    expect(parts).toHaveLength(2);
    for (const part of parts) expect(part.length).toBeLessThanOrEqual(2000);
    expect(parts.join('\n')).toBe(lines);
    const word = splitMessage('x'.repeat(2001));
    expect(word).toHaveLength(2);
    for (const part of word) expect(part.length).toBeLessThanOrEqual(2000);
    expect(word.join('')).toBe('x'.repeat(2001));
  });

  it('breaks between lines, each message within the limit, losing nothing', () => {
    const lines = Array.from({ length: 120 }, (_, i) => `Line ${i}: ${'words '.repeat(5)}`.trim());
    const parts = splitMessage(lines.join('\n'), 500);
    expect(parts.length).toBeGreaterThan(1);
    for (const part of parts) expect(part.length).toBeLessThanOrEqual(500);
    expect(parts.join('\n')).toBe(lines.join('\n'));
    for (const part of parts) expect(part.startsWith('Line ')).toBe(true);
  });

  it('breaks a long paragraph after a sentence, else after a word', () => {
    const sentences = Array.from({ length: 40 }, (_, i) => `Sentence number ${i} is here.`).join(' ');
    const parts = splitMessage(sentences, 200);
    for (const part of parts) {
      expect(part.length).toBeLessThanOrEqual(200);
      expect(part.endsWith('.')).toBe(true);
    }
    const words = Array.from({ length: 100 }, () => 'word').join(' ');
    for (const part of splitMessage(words, 50)) expect(part).toMatch(/^word( word)*$/);
  });

  it('closes a code block at a break and reopens it with its language, so every message renders alone', () => {
    const code = ['```ts', ...Array.from({ length: 60 }, (_, i) => `const value${i} = ${i};`), '```', 'Done.'].join('\n');
    const parts = splitMessage(code, 400);
    expect(parts.length).toBeGreaterThan(1);
    for (const part of parts) {
      expect(part.length).toBeLessThanOrEqual(400);
      expect(fenceCount(part) % 2).toBe(0);
    }
    expect(parts[1]?.startsWith('```ts\n')).toBe(true);
    expect(parts.at(-1)?.endsWith('Done.')).toBe(true);
  });

  it('moves a ~1,500-character code block that straddles the 2,000 mark whole into the next message, keeping a short one where it fits', () => {
    const prose = `Run:\n\`\`\`sh\nnpm test\n\`\`\`\n${linesOfLength(980)}`;
    const block = ['```python', ...Array.from({ length: 40 }, (_, i) => `total_${String(i).padStart(2, '0')} = pour("milk", ${String(i).padStart(2, '0')})  # ${'.'.repeat(5)}`), '```'].join('\n');
    expect(block.length).toBeGreaterThan(1400);
    expect(block.length).toBeLessThan(1600);
    const text = `${prose}\n${block}\nThat is all.`;
    const parts = splitMessage(text);
    expect(parts).toEqual([prose, `${block}\nThat is all.`]);
  });

  it('keeps an unclosed block that fits whole, closing it at the end', () => {
    const block = ['```ts', ...Array.from({ length: 20 }, (_, i) => `const cup${i} = ${i};`)].join('\n');
    const parts = splitMessage(`${'Milk is a drink. '.repeat(20).trim()}\n${block}`, 400);
    expect(parts.at(-1)).toBe(`${block}\n\`\`\``);
  });

  it('cuts a single unbroken word only when nothing else fits', () => {
    const parts = splitMessage('a'.repeat(1_000), 300);
    expect(parts.every((part) => part.length <= 300)).toBe(true);
    expect(parts.join('')).toBe('a'.repeat(1_000));
  });
});
