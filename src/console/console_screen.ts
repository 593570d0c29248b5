/** Where the console writes; `isTTY` when it is a terminal a person reads, `columns` its width when known. */
export interface ConsoleOutput {
  write(text: string): unknown;
  readonly isTTY?: boolean;
  readonly columns?: number;
}

/** What the person is typing after, shown on a terminal only. */
export const PROMPT = 'you> ';

/** The line the person is editing (a readline `Interface` in raw mode): its text, and where its cursor is. */
export interface InputLine {
  readonly line: string;
  readonly cursor: number;
  /** The cursor's row and column counted from the start of the prompt. */
  getCursorPos(): { readonly rows: number; readonly cols: number };
}

/** Carriage return, then erase the whole line. */
const ERASE_LINE = '\r\u001b[2K';
const ERASE_BELOW = '\u001b[J';
const up = (rows: number): string => (rows > 0 ? `\u001b[${rows}A` : '');
const toColumn = (column: number): string => `\u001b[${column + 1}G`;

/** How many cells `text` takes, counting one a character (wide characters are rare in what the console prints). */
const cells = (text: string): number => [...text].length;

/**
 * The terminal the conversation (on `output`) shares with the person's input line and with the
 * lines that go to `asides` (usually stderr). On a terminal the input line — the prompt and what
 * the person has typed so far — always stands on its own line below the conversation: before
 * anything is printed it is erased, and after, it is drawn again as it was, so that a reply
 * streaming while the person types goes above it and never mixes with it. An aside never lands
 * inside the conversation: one that comes while a line is open (a reply streaming) is held until
 * that line ends. Off a terminal it writes the conversation as it comes and nothing else: no
 * prompt and no control sequences.
 */
export class ConsoleScreen {
  /** The conversation's unfinished line: what was printed after its last line break. */
  #open = '';
  /** A reply is streaming: nothing else comes between its lines until the next {@link write}. */
  #streaming = false;
  /** Whether the input line is drawn below the conversation. */
  #inputShown = false;
  #input: InputLine | undefined;
  /** Asides waiting for the conversation's open line to end. */
  #held: string[] = [];
  /** Lines the person sent while a reply streamed, shown again below it once it ends. */
  #sent: string[] = [];
  /** Input is read: the input line is shown. */
  #reading = false;
  /** No more input is read: the input line is not shown again. */
  #closed = false;
  readonly #typedListeners: (() => void)[] = [];

  constructor(
    private readonly output: ConsoleOutput,
    private readonly asides?: ConsoleOutput,
  ) {}

  /** Whether a person reads the conversation on a terminal. */
  get isTTY(): boolean {
    return this.output.isTTY === true;
  }

  /**
   * Input is read from now on: the prompt shows from here. `input` is the line the person edits,
   * drawn after the prompt; without it the terminal itself echoes what is typed.
   */
  attach(input?: InputLine): void {
    this.#input = input;
    this.#reading = true;
    if (this.#open === '' && !this.#streaming) this.#showInput();
  }

  /** Prints text of the conversation; a line it ends lets the held asides follow. */
  write(text: string): void {
    if (text === '') return;
    this.#streaming = false;
    this.#print(text);
  }

  /** Prints part of a reply still streaming: nothing else comes between its lines until the next {@link write}. */
  stream(text: string): void {
    if (text === '') return;
    this.#streaming = true;
    this.#print(text);
  }

  /**
   * The person ended `line` (the terminal or readline echoed it and a line break): it stays where
   * it was typed and the input line starts again below it, except while a reply streams: then it
   * is taken away from under the reply and shown again once the reply's line ends.
   */
  typed(line: string): void {
    for (const listener of this.#typedListeners) listener();
    this.#inputShown = false;
    if (this.#input !== undefined && (this.#streaming || this.#open !== '')) {
      this.output.write(`${up(this.#rowsOf(PROMPT + line) + 1)}\r${ERASE_BELOW}`);
      this.#backToOpenLine();
      this.#sent.push(`${PROMPT}${line}\n`);
    }
    this.#settle();
  }

  /** Calls `listener` each time the person ends a line. */
  onTyped(listener: () => void): void {
    this.#typedListeners.push(listener);
  }

  /** Prints a line (ending in a newline) on `asides`, between lines of the conversation, never inside one. */
  aside(line: string): void {
    this.#held.push(line);
    if (this.#streaming || this.#open !== '') return;
    this.#hideInput();
    this.#settle();
  }

  /** The conversation is over: the input line goes, and what comes after (the last asides) is printed without it. */
  close(): void {
    this.#hideInput();
    this.#closed = true;
  }

  #print(text: string): void {
    this.#hideInput();
    this.output.write(text);
    const lineBreak = text.lastIndexOf('\n');
    this.#open = lineBreak === -1 ? this.#open + text : text.slice(lineBreak + 1);
    this.#settle();
  }

  /** Prints what waited for the conversation's open line to end, if it has, then the input line. */
  #settle(): void {
    if (!this.#streaming && this.#open === '') {
      for (const line of this.#sent.splice(0)) this.output.write(line);
      for (const line of this.#held.splice(0)) this.asides?.write(line);
    }
    this.#showInput();
  }

  /** Draws the prompt and what the person typed below the conversation, the cursor where the person left it. */
  #showInput(): void {
    if (!this.isTTY || !this.#reading || this.#closed || this.#inputShown) return;
    if (this.#open !== '') this.output.write('\n');
    const line = this.#input?.line ?? '';
    const cursor = this.#input?.cursor ?? line.length;
    this.output.write(`${PROMPT}${line}`);
    if (this.#input !== undefined && cursor < line.length) {
      const at = this.#input.getCursorPos();
      this.output.write(`${toColumn(at.cols)}${up(this.#rowsOf(PROMPT + line) - at.rows)}`);
    }
    this.#inputShown = true;
  }

  /** Erases the input line and puts the cursor where the conversation goes on: at the end of its open line, if any. */
  #hideInput(): void {
    if (!this.#inputShown) return;
    this.#inputShown = false;
    const line = this.#input?.line ?? '';
    const cursorRow = this.#input?.getCursorPos().rows ?? 0;
    this.output.write(`${up(cursorRow)}${ERASE_LINE}${this.#rowsOf(PROMPT + line) > 0 ? ERASE_BELOW : ''}`);
    this.#backToOpenLine();
  }

  /** From the start of the row below the conversation, back to the end of its open line, if any. */
  #backToOpenLine(): void {
    if (this.#open === '') return;
    // An open line that filled its last row ended right where the cursor is; else it goes on one row up.
    const column = cells(this.#open) % this.#columns();
    if (column !== 0) this.output.write(`${up(1)}${toColumn(column)}`);
  }

  /** The rows below the first that `text` wraps onto. */
  #rowsOf(text: string): number {
    return Math.floor(cells(text) / this.#columns());
  }

  #columns(): number {
    const columns = this.output.columns;
    return columns === undefined || columns <= 0 ? Number.POSITIVE_INFINITY : columns;
  }
}
