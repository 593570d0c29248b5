import type { ModelCall } from '../fake_llm/tool_conversation.js';

/** The fake model's own time spent on one turn, in ms: what the bot could not have been faster than. */
export interface ModelTime {
  /** Every request before the one that streamed the reply, whole, plus that one's time to its first byte. */
  readonly toFirstText: number;
  /** Every request of the turn, whole. */
  readonly toFinal: number;
}

const duration = (call: ModelCall): number => (call.request.finishedAt ?? call.request.arrivedAt) - call.request.arrivedAt;

/** The model's time per turn token, from the requests it answered for that token. */
export function modelTimes(calls: readonly ModelCall[]): Map<string, ModelTime> {
  const byToken = new Map<string, ModelCall[]>();
  for (const call of calls) {
    if (call.token === undefined) continue;
    const turnCalls = byToken.get(call.token) ?? [];
    turnCalls.push(call);
    byToken.set(call.token, turnCalls);
  }
  const times = new Map<string, ModelTime>();
  for (const [token, turnCalls] of byToken) {
    const text = turnCalls.findIndex((call) => call.kind === 'reply' && call.request.finishedAt !== undefined && !call.request.closedByClient);
    const before = (text < 0 ? turnCalls : turnCalls.slice(0, text)).reduce((sum, call) => sum + duration(call), 0);
    const textCall = turnCalls[text];
    const firstByte = textCall === undefined ? 0 : (textCall.request.firstByteAt ?? textCall.request.arrivedAt) - textCall.request.arrivedAt;
    times.set(token, { toFirstText: before + firstByte, toFinal: turnCalls.reduce((sum, call) => sum + duration(call), 0) });
  }
  return times;
}
