import type { ToolUseBlock } from '../llm/protocol.js';
import type { Tool } from '../tools/tool.js';
import { callFingerprint } from '../turn_state/call_fingerprint.js';
import type { ChatTurn } from './chat_turn.js';
import { repeatWarning } from './guard_messages.js';

/** What the loop does with one proposed call. Refused calls are recorded and never run. */
export type CallPlan =
  { readonly kind: 'run'; readonly use: ToolUseBlock; readonly tool: Tool; readonly warning: string | undefined } | { readonly kind: 'refuse'; readonly use: ToolUseBlock; readonly error: string };

/**
 * Plans a batch and charges it to the turn: malformed arguments, unknown tools, a fourth
 * identical call and calls beyond the remaining tool budget are refused; the rest will run, in
 * order, each charged once. Deterministic on the turn's state, so a continuation that replays a
 * logged batch reaches exactly the decisions the interrupted loop reached.
 */
export function planBatch(turn: ChatTurn, uses: readonly ToolUseBlock[]): CallPlan[] {
  const counts = { ...turn.repeatedCalls.counts };
  const warned = [...turn.repeatedCalls.warned];
  let used = turn.toolCallsUsed;
  const plans = uses.map((use): CallPlan => {
    if (use.malformedInput !== undefined) return { kind: 'refuse', use, error: `not run: ${use.malformedInput.reason}` };
    const tool = turn.tools.find((candidate) => candidate.name === use.name);
    if (tool === undefined) return { kind: 'refuse', use, error: `not run: no tool named ${use.name} is available here` };
    const fingerprint = callFingerprint(use.name, use.input);
    const times = (counts[fingerprint] ?? 0) + 1;
    counts[fingerprint] = times;
    if (times >= 4) return { kind: 'refuse', use, error: `refused: ${use.name} was already called ${times - 1} times with this same input` };
    if (used >= turn.budgets.maxToolCalls) return { kind: 'refuse', use, error: `refused: this turn's budget of ${turn.budgets.maxToolCalls} tool calls is spent` };
    used += 1;
    const warn = times === 3 && !warned.includes(fingerprint);
    if (warn) warned.push(fingerprint);
    return { kind: 'run', use, tool, warning: warn ? repeatWarning(use.name, times) : undefined };
  });
  turn.toolCallsUsed = used;
  turn.repeatedCalls = { counts, warned };
  return plans;
}
