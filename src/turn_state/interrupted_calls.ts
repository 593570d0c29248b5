import type { JsonObject } from '../llm/protocol.js';
import type { EffectClass } from './ledger_types.js';
import type { UncertainCall } from './turn_store.js';

/** What a sweep records as the error of a call that was RUNNING when its owner went away. */
export const INTERRUPTED = 'interrupted while running: the effect may or may not have happened';

/** A RUNNING op a sweep is about to make OUTCOME_UNKNOWN, with its turn's channel and requester, as both backends select it. */
export interface RunningOpRow {
  turn_id: string;
  step: number;
  tool_call_id: string;
  tool_name: string;
  effect: EffectClass;
  input: string;
  channel_id: string;
  requester_id: string;
}

/** The uncertain call a sweep reports (and logs at WARN) for one such row. */
export function uncertainCallOf(row: RunningOpRow): UncertainCall {
  return {
    turnId: row.turn_id,
    step: row.step,
    toolCallId: row.tool_call_id,
    channelId: row.channel_id,
    requesterId: row.requester_id,
    toolName: row.tool_name,
    effect: row.effect,
    input: JSON.parse(row.input) as JsonObject,
    error: INTERRUPTED,
  };
}
