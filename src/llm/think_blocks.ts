import { assertNever } from '../core/assert_never.js';

const OPEN = '<think>';
const CLOSE = '</think>';

/**
 * Where {@link ThinkBlocks} is in a response's text: before anything shown (a `<think>` block may
 * open here), inside a block, just after one (the whitespace that follows it is dropped), or in
 * the answer, where every character is text, a `<think>` written there included.
 */
type ThinkState = 'before_answer' | 'thinking' | 'after_block' | 'answer';

/** A piece of a response's text, split into what the model reasoned and what it answered. */
export interface SplitText {
  readonly reasoning: string;
  readonly text: string;
}

/**
 * Takes the `<think>…</think>` blocks that open a response (DeepSeek, Qwen and other models served
 * over Chat Completions write their reasoning so) out of its text, fed piece by piece as it
 * streams: a tag split over two pieces is held until it is whole, and the whitespace after a
 * block is dropped. Only blocks before the first character of the answer count: a `<think>` the
 * answer itself writes (explaining the tag, say) stays text.
 *
 * @example
 * ```ts
 * const blocks = new ThinkBlocks();
 * blocks.push('<thi'); // { reasoning: '', text: '' }
 * blocks.push('nk>plan</think>\n\nHello'); // { reasoning: 'plan', text: 'Hello' }
 * ```
 */
export class ThinkBlocks {
  #state: ThinkState = 'before_answer';
  /** Text held back because it may be the start of a tag. */
  #held = '';

  /** What `piece`, after what came before it, adds to the reasoning and to the answer. */
  push(piece: string): SplitText {
    let reasoning = '';
    let text = '';
    let rest = this.#held + piece;
    this.#held = '';
    while (rest !== '') {
      switch (this.#state) {
        case 'answer':
          text += rest;
          rest = '';
          break;
        case 'after_block':
        case 'before_answer': {
          const trimmed = rest.trimStart();
          if (trimmed === '') {
            // Whitespace before the answer: kept until it is known whether a block follows, dropped after a block.
            if (this.#state === 'before_answer') this.#held = rest;
            rest = '';
            break;
          }
          if (trimmed.startsWith(OPEN)) {
            this.#state = 'thinking';
            rest = trimmed.slice(OPEN.length);
            break;
          }
          if (OPEN.startsWith(trimmed)) {
            this.#held = this.#state === 'before_answer' ? rest : trimmed;
            rest = '';
            break;
          }
          text += this.#state === 'before_answer' ? rest : trimmed;
          this.#state = 'answer';
          rest = '';
          break;
        }
        case 'thinking': {
          const end = rest.indexOf(CLOSE);
          if (end >= 0) {
            reasoning += rest.slice(0, end);
            this.#state = 'after_block';
            rest = rest.slice(end + CLOSE.length);
            break;
          }
          const kept = partialTagAtEnd(rest, CLOSE);
          reasoning += rest.slice(0, rest.length - kept);
          this.#held = rest.slice(rest.length - kept);
          rest = '';
          break;
        }
        default:
          return assertNever(this.#state);
      }
    }
    return { reasoning, text };
  }

  /** The text is over: what was held back is what it looked like (an unfinished block is reasoning, an unfinished tag text). */
  end(): SplitText {
    const held = this.#held;
    this.#held = '';
    switch (this.#state) {
      case 'thinking':
        return { reasoning: held, text: '' };
      case 'before_answer':
      case 'after_block':
        return { reasoning: '', text: held.trim() === '' ? '' : held };
      case 'answer':
        return { reasoning: '', text: held };
      default:
        return assertNever(this.#state);
    }
  }
}

/** How many characters at the end of `text` may begin `tag`: they wait for the next piece. */
function partialTagAtEnd(text: string, tag: string): number {
  for (let length = Math.min(tag.length - 1, text.length); length > 0; length--) {
    if (tag.startsWith(text.slice(text.length - length))) return length;
  }
  return 0;
}
