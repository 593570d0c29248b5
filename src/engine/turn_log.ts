import { toolUses, type ContentBlock, type Message, type ResponseBlock, type StopReason } from '../llm/protocol.js';
import type { OpRecord } from '../turn_state/ledger_types.js';
import { guardOf, type GuardKind } from './guard_messages.js';

/** A model turn the log already holds, as the loop would have received it from the model. */
export interface LoggedModelTurn {
  readonly content: readonly ResponseBlock[];
  /** `max_tokens` when a cut-off guard followed it in the log, else `end_turn`. */
  readonly stopReason: StopReason;
}

/**
 * The rows of an interrupted turn written after the checkpoint it was restored from, with its
 * ledger (DESIGN §7.4). The loop reads them where it would otherwise ask the model or write, so
 * that a resumed turn goes through the same code, and the same counter rules, as a fresh one.
 * An empty log is a fresh turn.
 */
export class TurnLog {
  #next = 0;

  constructor(
    private readonly rows: readonly Message[],
    private readonly ops: readonly OpRecord[],
  ) {}

  /** The log of a turn that has done nothing yet. */
  static empty(): TurnLog {
    return new TurnLog([], []);
  }

  /**
   * The next logged model turn, or `undefined` when the log is used up and the model must be
   * asked. Rows no step accounts for are moved to `transcript` on the way. A logged empty-reply
   * guard stands for the empty model turn that was never stored.
   */
  nextModelTurn(transcript: Message[]): LoggedModelTurn | undefined {
    for (let row = this.rows[this.#next]; row !== undefined; row = this.rows[this.#next]) {
      if (guardOf(row) === 'emptyTurn') return { content: [], stopReason: 'end_turn' };
      if (row.role === 'assistant') {
        this.#next += 1;
        const following = this.rows[this.#next];
        const cutOff = following !== undefined && toolUses(row).length === 0 && guardOf(following) === 'continueCutOff';
        return { content: row.content.filter(isReplyBlock), stopReason: cutOff ? 'max_tokens' : 'end_turn' };
      }
      transcript.push(row);
      this.#next += 1;
    }
    return undefined;
  }

  /** The guard message the log holds next, taken, when it is the guard of `kind`: it was already made durable. */
  takeGuard(kind: GuardKind): Message | undefined {
    const row = this.rows[this.#next];
    if (row === undefined || guardOf(row) !== kind) return undefined;
    this.#next += 1;
    return row;
  }

  /** The tool results logged right after the model turn just read, taken: that batch was answered. */
  takeAnswer(): Message | undefined {
    const row = this.rows[this.#next];
    if (row?.role !== 'tool') return undefined;
    this.#next += 1;
    return row;
  }

  /** The ledger rows of `step`. */
  opsOf(step: number): OpRecord[] {
    return this.ops.filter((op) => op.step === step);
  }
}

function isReplyBlock(block: ContentBlock): block is ResponseBlock {
  return block.type === 'text' || block.type === 'tool_use' || block.type === 'reasoning';
}
