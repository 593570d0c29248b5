/**
 * Splits typed input into lines, trimmed, empty ones left out, with `\n`, `\r\n` or `\r` ending
 * a line. At most `keep` characters of one line are held: a line longer than that is handed on
 * as its first `keep` characters (not trimmed at the end), enough to show it too long without
 * holding all of it. Trailing whitespace alone never makes a line too long.
 */
export class BoundedLines {
  #line = '';
  /** Whether something other than whitespace came after the characters kept. */
  #overflowed = false;

  constructor(private readonly keep: number) {}

  /** The lines that `chunk` completes. */
  push(chunk: string): string[] {
    const lines: string[] = [];
    const breaks = /[\r\n]/g;
    let start = 0;
    for (let found = breaks.exec(chunk); found !== null; found = breaks.exec(chunk)) {
      this.#add(chunk.slice(start, found.index));
      const line = this.#take();
      if (line !== '') lines.push(line);
      start = found.index + 1;
    }
    this.#add(chunk.slice(start));
    return lines;
  }

  /** The last line, when the input ended without a line break after it. */
  end(): string[] {
    const line = this.#take();
    return line === '' ? [] : [line];
  }

  #add(piece: string): void {
    const text = this.#line === '' ? piece.trimStart() : piece;
    const room = this.keep - this.#line.length;
    this.#line += text.slice(0, room);
    if (!this.#overflowed && /\S/.test(text.slice(room))) this.#overflowed = true;
  }

  #take(): string {
    const line = this.#overflowed ? this.#line : this.#line.trimEnd();
    this.#line = '';
    this.#overflowed = false;
    return line;
  }
}
