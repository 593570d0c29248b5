import { assertNever } from '../core/assert_never.js';

/**
 * Where {@link TerminalText} is within the text: plain text, just after an ESC (or in its
 * intermediate bytes), inside a control sequence (CSI), or inside a control string (OSC, DCS,
 * SOS, PM, APC) that runs to its terminator.
 */
type FilterState = 'text' | 'escape' | 'csi' | 'string';

const ESC = 0x1b;
const BEL = 0x07;
const CAN = 0x18;
const SUB = 0x1a;
const C1_CSI = 0x9b;
/** DCS, SOS, OSC, PM, APC as single C1 characters: each opens a control string. */
const C1_STRINGS = new Set([0x90, 0x98, 0x9d, 0x9e, 0x9f]);
/** What follows ESC to open a control string: `P` DCS, `X` SOS, `]` OSC, `^` PM, `_` APC. */
const ESC_STRINGS = new Set(['P', 'X', ']', '^', '_']);

/** Whether `code` is a control character a terminal would act on: C0 but newline and tab, DEL, C1. */
function isControl(code: number): boolean {
  return (code < 0x20 && code !== 0x0a && code !== 0x09) || (code >= 0x7f && code <= 0x9f);
}

/**
 * Text from the model made safe to print on a terminal: every control character but newline and
 * tab is dropped, and escape sequences (CSI `ESC[` … final byte, OSC `ESC]` … BEL or ST, and the
 * other ECMA-48 forms) are dropped whole, so none leaves a residue such as `[2J`. It is fed text
 * piece by piece: a sequence split between two pieces is dropped just the same.
 */
export class TerminalText {
  #state: FilterState = 'text';

  /** The printable part of `piece`, given what came before it. */
  push(piece: string): string {
    let out = '';
    for (const char of piece) out += this.#step(char);
    return out;
  }

  /** Forgets a sequence left unfinished: the next text starts fresh. */
  reset(): void {
    this.#state = 'text';
  }

  #step(char: string): string {
    const code = char.codePointAt(0) ?? 0;
    switch (this.#state) {
      case 'text':
        return this.#text(char, code);
      case 'escape':
        if (code >= 0x20 && code <= 0x2f) return '';
        if (ESC_STRINGS.has(char)) return this.#to('string');
        if (char === '[') return this.#to('csi');
        if (code >= 0x30 && code <= 0x7e) return this.#to('text');
        return this.#abandon(char, code);
      case 'csi':
        if (code >= 0x20 && code <= 0x3f) return '';
        if (code >= 0x40 && code <= 0x7e) return this.#to('text');
        return this.#abandon(char, code);
      case 'string':
        // A control string ends at BEL or ST (ESC \ or C1 ST); CAN and SUB cancel it; a newline
        // ends it too, so an unterminated one cannot swallow the rest of a reply.
        if (code === BEL || code === 0x9c || code === CAN || code === SUB) return this.#to('text');
        if (code === ESC) return this.#to('escape');
        if (char === '\n') return this.#abandon(char, code);
        return '';
      default:
        return assertNever(this.#state);
    }
  }

  #text(char: string, code: number): string {
    if (code === ESC) return this.#to('escape');
    if (code === C1_CSI) return this.#to('csi');
    if (C1_STRINGS.has(code)) return this.#to('string');
    return isControl(code) ? '' : char;
  }

  /** A sequence broken off by a character that cannot continue it: the character counts as text. */
  #abandon(char: string, code: number): string {
    this.#state = 'text';
    return this.#text(char, code);
  }

  #to(state: FilterState): string {
    this.#state = state;
    return '';
  }
}

/** `text`, whole, as {@link TerminalText} prints it. */
export function terminalSafe(text: string): string {
  return new TerminalText().push(text);
}
