import type { Message, Usage } from '../llm/protocol.js';
import type { ToolOutcome } from '../tools/tool.js';
import type { UsageRecord } from '../turn_state/lease_riders.js';
import type { ChatTurn } from './chat_turn.js';

/** Whose spending a meter counts: the turn's message and its requester. */
export type MeteredTurn = Pick<ChatTurn, 'identity' | 'requester'>;

/** One model attempt's tokens, under the name of the model that was asked (a fallback under its own). */
export interface AttemptUsage {
  readonly model: string;
  readonly usage: Usage;
}

/** The per-turn limit a turn reached (DESIGN §10.1): `spent` of `max` tokens, or of `max` in cost. */
export interface TurnLimitHit {
  readonly kind: 'max_tokens' | 'max_cost';
  readonly max: number;
  readonly spent: number;
}

/**
 * Where a turn's model calls are counted and what it may spend (DESIGN §10.1). The loop asks
 * `reached` before each model call and stops the turn, its work kept, at the first limit reached
 * (what the turn spent in earlier runs counts too); after each call it prices the tokens of
 * every attempt, those of failed attempts included, for the turn's next write to carry (DESIGN
 * §7.3), or for `record` to store alone when nothing durable follows. Nothing here ever rejects:
 * a count the store could not keep is logged, and never stops a turn.
 *
 * @example
 * ```ts
 * const hit = await meter.reached(turn);
 * if (hit !== undefined) return { kind: 'limited', limit: hit, done: callsDone(turn.transcript) };
 * // … the model call, collecting each attempt's usage …
 * const usage = meter.usageOf(turn, [{ model: 'gpt-4o', usage: response.usage }]);
 * if (usage !== undefined) durability.carryUsage(usage);
 * ```
 */
export interface TurnMeter {
  reached(turn: MeteredTurn): Promise<TurnLimitHit | undefined>;
  /** What `attempts` cost, priced and counted in what the turn spent; none for no attempts. */
  usageOf(turn: MeteredTurn, attempts: readonly AttemptUsage[]): UsageRecord | undefined;
  /** Stores `usage` by itself. */
  record(usage: UsageRecord): Promise<void>;
}

/** A tool call the turn made and what it came to, as its transcript holds it. */
export interface DoneCall {
  readonly toolName: string;
  readonly outcome: Extract<ToolOutcome, { kind: 'result' | 'failed' }>;
}

/** The tool calls of a turn's transcript that have results, in order: the work a turn stopped by a limit keeps. */
export function callsDone(transcript: readonly Message[]): DoneCall[] {
  const names = new Map<string, string>();
  const done: DoneCall[] = [];
  for (const message of transcript) {
    for (const block of message.content) {
      if (block.type === 'tool_use') names.set(block.id, block.name);
      if (block.type !== 'tool_result') continue;
      const toolName = names.get(block.toolUseId) ?? 'unknown tool';
      done.push({ toolName, outcome: block.isError ? { kind: 'failed', error: block.content } : { kind: 'result', text: block.content } });
    }
  }
  return done;
}
