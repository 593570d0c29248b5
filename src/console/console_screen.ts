import { assertNever } from '../core/assert_never.js';

/** Where the console writes; `isTTY` when it is a terminal a person reads. */
export interface ConsoleOutput {
  write(text: string): unknown;
  readonly isTTY?: boolean;
}

/** What the person is typing after, shown on a terminal only. */
export const PROMPT = 'you> ';

/** Carriage return, then erase the whole line: the prompt goes before other text takes its place. */
const ERASE_LINE = '\r\u001b[2K';

/**
 * Where the cursor is: at the start of an empty line, just after the prompt, or within text of
 * the conversation that has not ended yet (a reply still streaming, whatever lines it printed).
 */
type Cursor = 'line_start' | 'prompt' | 'mid_line';

/**
 * The terminal the conversation (on `output`) shares with the log lines that still reach it (on
 * `asides`, usually stderr). On a terminal it shows the prompt whenever the conversation waits at
 * the start of a line, and erases it before anything else is printed there. A log line never
 * lands inside the conversation: one that comes while a line is open (a reply streaming) is held
 * until that line ends. Off a terminal it writes the conversation as it comes and nothing else:
 * no prompt and no control sequences.
 */
export class ConsoleScreen {
  #cursor: Cursor = 'line_start';
  #held: string[] = [];
  /** No more input is read: the prompt is not shown again. */
  #closed = false;

  constructor(
    private readonly output: ConsoleOutput,
    private readonly asides?: ConsoleOutput,
  ) {}

  /** Whether a person reads the conversation on a terminal. */
  get isTTY(): boolean {
    return this.output.isTTY === true;
  }

  /** Prints text of the conversation; a line it ends lets the held log lines and the prompt follow. */
  write(text: string): void {
    if (text === '') return;
    this.#erasePrompt();
    this.output.write(text);
    this.#cursor = text.endsWith('\n') ? 'line_start' : 'mid_line';
    this.#settle();
  }

  /** Prints part of a reply still streaming: nothing else comes between its lines until the next {@link write}. */
  stream(text: string): void {
    if (text === '') return;
    this.#erasePrompt();
    this.output.write(text);
    this.#cursor = 'mid_line';
  }

  /** The person ended a line: the terminal echoed it, so the cursor is at the start of the next one. */
  typed(): void {
    if (this.#cursor === 'prompt') this.#cursor = 'line_start';
    this.#settle();
  }

  /** Prints a log line (ending in a newline) between lines of the conversation, never inside one. */
  aside(line: string): void {
    this.#held.push(line);
    this.#settle();
  }

  /** The conversation is over: the prompt goes, and what comes after (the last log lines) is printed without it. */
  close(): void {
    this.#closed = true;
    this.#erasePrompt();
  }

  /** Prints what is held and the prompt, unless a line of the conversation is still open. */
  #settle(): void {
    switch (this.#cursor) {
      case 'mid_line':
        return;
      case 'prompt':
        if (this.#held.length === 0) return;
        this.#erasePrompt();
        return this.#settle();
      case 'line_start':
        for (const line of this.#held.splice(0)) this.asides?.write(line);
        if (!this.isTTY || this.#closed) return;
        this.output.write(PROMPT);
        this.#cursor = 'prompt';
        return;
      default:
        return assertNever(this.#cursor);
    }
  }

  #erasePrompt(): void {
    if (this.#cursor !== 'prompt') return;
    this.output.write(ERASE_LINE);
    this.#cursor = 'line_start';
  }
}
