/** Discord's limit on one message's content. */
export const DISCORD_MESSAGE_LIMIT = 2000;

const FENCE = /^\s*```(\S*)/;
const CLOSING_FENCE = '\n```';

/**
 * Splits a reply into messages of at most `limit` characters, breaking between lines where it
 * can, else between sentences, else between words, and only as a last resort inside a word. A
 * code block that fits in one message is never split: when it does not fit in the current
 * message, it starts the next one whole. Only a block longer than one message is cut, and never
 * left open across a break: the message closes it and the next one reopens it with the same
 * language, so every message renders on its own.
 */
export function splitMessage(text: string, limit = DISCORD_MESSAGE_LIMIT): string[] {
  if (text.length <= limit) return [text];
  const messages = new Messages(limit);
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i += 1) {
    const line = lines[i] ?? '';
    const block = messages.inBlock ? undefined : wholeBlockAt(lines, i, limit);
    if (block === undefined) {
      messages.addLine(line);
    } else {
      messages.addWhole(block.text);
      i += block.lineCount - 1;
    }
  }
  return messages.toMessages();
}

/** The code block opening at line `start`, when it fits in one message (an unclosed block runs to the end and is closed there). */
function wholeBlockAt(lines: readonly string[], start: number, limit: number): { text: string; lineCount: number } | undefined {
  if (!FENCE.test(lines[start] ?? '')) return undefined;
  const close = lines.findIndex((line, i) => i > start && FENCE.test(line));
  const end = close === -1 ? lines.length : close + 1;
  const text = lines.slice(start, end).join('\n') + (close === -1 ? CLOSING_FENCE : '');
  return text.length <= limit ? { text, lineCount: end - start } : undefined;
}

/** The messages of one reply as they fill up, with the code block open at the end of the current one. */
class Messages {
  private readonly chunks: string[] = [];
  private current = '';
  private fence: string | undefined;

  constructor(private readonly limit: number) {}

  get inBlock(): boolean {
    return this.fence !== undefined;
  }

  /** A line, broken where it is too long, starting a new message where the current one is full. */
  addLine(line: string): void {
    const opened = FENCE.exec(line);
    // A line that opens a block must leave room for the fence that closes it at the break.
    const closing = this.fence === undefined && opened !== null ? CLOSING_FENCE : this.close();
    for (const piece of breakLine(line, this.limit - 8 - (this.fence ?? '').length)) {
      const joined = this.joinedWith(piece);
      if (joined.length + closing.length > this.limit) {
        this.flush();
        this.current += piece;
      } else {
        this.current = joined;
      }
    }
    if (opened !== null) this.fence = this.fence === undefined ? (opened[1] ?? '') : undefined;
  }

  /** Text that fits in one message and must stay in one: in the current message if there is room, else at the start of the next. */
  addWhole(text: string): void {
    const joined = this.joinedWith(text);
    if (joined.length > this.limit) {
      this.flush();
      this.current = text;
    } else {
      this.current = joined;
    }
  }

  /** Every message, the last one closed like the others. */
  toMessages(): string[] {
    if (this.current.trim() !== '') this.chunks.push(this.current + this.close());
    return this.chunks;
  }

  private joinedWith(piece: string): string {
    return this.current === '' || this.current.endsWith('\n') ? this.current + piece : `${this.current}\n${piece}`;
  }

  private close(): string {
    return this.fence === undefined ? '' : CLOSING_FENCE;
  }

  private flush(): void {
    if (this.current.trim() !== '') this.chunks.push(this.current + this.close());
    this.current = this.fence === undefined ? '' : `\`\`\`${this.fence}\n`;
  }
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
