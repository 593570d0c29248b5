import { PassThrough } from 'node:stream';

const ESC = '\u001b';

/**
 * What a person sees on a terminal `columns` wide: text written to it with the control sequences
 * the console and readline use applied (carriage return, line feed as CR LF the way a terminal's
 * output does, cursor moves, erasing, colours ignored). A sequence it does not know fails the test.
 */
export class TerminalScreen {
  readonly #rows: string[][] = [[]];
  #row = 0;
  #column = 0;
  /** The cursor is past the last column: the next character goes to the start of the next row. */
  #pendingWrap = false;

  constructor(readonly columns = 80) {}

  write(text: string): void {
    const sequence = new RegExp(`${ESC}\\[([0-9;]*)([A-Za-z])|${ESC}([78])|([\\s\\S])`, 'gu');
    for (const [, params = '', command, dec, char] of text.matchAll(sequence)) {
      if (dec !== undefined) throw new Error(`the terminal does not know ESC ${dec}`);
      if (command !== undefined) this.#control(command, params);
      else if (char !== undefined) this.#char(char);
    }
  }

  /** The rows on screen, trailing blanks left out, and empty rows after the last text dropped. */
  lines(): string[] {
    const lines = this.#rows.map((row) => row.join('').trimEnd());
    while (lines.length > 0 && lines.at(-1) === '') lines.pop();
    return lines;
  }

  /** The row and column of the cursor. */
  get cursor(): { readonly row: number; readonly column: number } {
    return { row: this.#row, column: this.#column };
  }

  #char(char: string): void {
    switch (char) {
      case '\r':
        this.#column = 0;
        this.#pendingWrap = false;
        return;
      case '\n':
        this.#moveTo(this.#row + 1, 0);
        return;
      default:
        if (char < ' ') throw new Error(`the terminal does not expect control character ${char.codePointAt(0)}`);
        if (this.#pendingWrap) this.#moveTo(this.#row + 1, 0);
        this.#line()[this.#column] = char;
        for (let column = 0; column < this.#column; column++) this.#line()[column] ??= ' ';
        if (this.#column === this.columns - 1) this.#pendingWrap = true;
        else this.#column++;
    }
  }

  #control(command: string, params: string): void {
    const n = params === '' ? 1 : Number(params.split(';')[0]);
    switch (command) {
      case 'm':
        return;
      case 'A':
        return this.#moveTo(Math.max(0, this.#row - n), this.#column);
      case 'B':
        return this.#moveTo(this.#row + n, this.#column);
      case 'C':
        return this.#moveTo(this.#row, Math.min(this.columns - 1, this.#column + n));
      case 'D':
        return this.#moveTo(this.#row, Math.max(0, this.#column - n));
      case 'G':
        return this.#moveTo(this.#row, Math.min(this.columns - 1, n - 1));
      case 'K':
        if (params === '2') this.#rows[this.#row] = [];
        else this.#rows[this.#row] = this.#line().slice(0, this.#column);
        return;
      case 'J':
        this.#rows[this.#row] = this.#line().slice(0, this.#column);
        this.#rows.length = this.#row + 1;
        return;
      default:
        throw new Error(`the terminal does not know ESC [${params}${command}`);
    }
  }

  #moveTo(row: number, column: number): void {
    this.#row = row;
    this.#column = column;
    this.#pendingWrap = false;
    while (this.#rows.length <= row) this.#rows.push([]);
  }

  #line(): string[] {
    return this.#rows[this.#row] ?? [];
  }
}

/** A terminal for the console: an input a person types keys into (raw mode on or off) and an output drawn on a {@link TerminalScreen}. */
export function fakeTerminal(columns = 80) {
  const screen = new TerminalScreen(columns);
  const written: string[] = [];
  const waiters: { readonly done: () => boolean; readonly resolve: () => void }[] = [];
  const input = Object.assign(new PassThrough(), {
    isTTY: true as const,
    isRaw: false,
    setRawMode(raw: boolean) {
      input.isRaw = raw;
      return input;
    },
  });
  const output = {
    isTTY: true,
    columns,
    write: (text: string) => {
      written.push(text);
      screen.write(text);
      for (const waiter of waiters.filter((one) => one.done())) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve();
      }
    },
  };
  /** Resolves once the screen shows what `done` looks for. */
  const shows = (done: (lines: string[]) => boolean): Promise<void> =>
    done(screen.lines()) ? Promise.resolve() : new Promise((resolve) => waiters.push({ done: () => done(screen.lines()), resolve }));
  return { input, output, screen, shows, written: () => written.join(''), keys: (text: string) => void input.write(text) };
}
