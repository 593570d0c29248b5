/** Discord's limit on one message's content. */
export const DISCORD_MESSAGE_LIMIT = 2000;

const FENCE = /^\s*```(\S*)/;

/**
 * Splits a reply into messages of at most `limit` characters, breaking between lines where it
 * can, else between sentences, else between words, and only as a last resort inside a word. A
 * code block is never left open across a break: the message closes it and the next one reopens it
 * with the same language, so every message renders on its own.
 */
export function splitMessage(text: string, limit = DISCORD_MESSAGE_LIMIT): string[] {
  if (text.length <= limit) return [text];
  const chunks: string[] = [];
  let current = '';
  let fence: string | undefined;
  const close = (): string => (fence === undefined ? '' : '\n```');
  const flush = (): void => {
    if (current.trim() !== '') chunks.push(current + close());
    current = fence === undefined ? '' : `\`\`\`${fence}\n`;
  };
  for (const line of text.split('\n')) {
    for (const piece of breakLine(line, limit - 8 - (fence ?? '').length)) {
      const joined = current === '' || current.endsWith('\n') ? current + piece : `${current}\n${piece}`;
      if (joined.length + close().length > limit) {
        flush();
        current += piece;
      } else {
        current = joined;
      }
    }
    const opened = FENCE.exec(line);
    if (opened !== null) fence = fence === undefined ? (opened[1] ?? '') : undefined;
  }
  if (current.trim() !== '') chunks.push(current + close());
  return chunks;
}

/** A line longer than `room`, cut after sentences, else after words, else anywhere. */
function breakLine(line: string, room: number): string[] {
  const pieces: string[] = [];
  let rest = line;
  while (rest.length > room) {
    const window = rest.slice(0, room);
    const sentence = Math.max(window.lastIndexOf('. '), window.lastIndexOf('! '), window.lastIndexOf('? '));
    const word = window.lastIndexOf(' ');
    const cut = sentence > room / 2 ? sentence + 1 : word > room / 2 ? word : room;
    pieces.push(rest.slice(0, cut).trimEnd());
    rest = rest.slice(cut).trimStart();
  }
  pieces.push(rest);
  return pieces;
}
