import { toolUses, type Message, type ToolUseBlock } from '../llm/protocol.js';
import { isLedgerIntentError } from '../turn_state/errors.js';
import type { EffectClass, OpRecord } from '../turn_state/ledger_types.js';
import { planBatch } from './batch_plan.js';
import { callLabel } from './call_label.js';
import { runBatch } from './batch_runner.js';
import type { BatchSource } from './call_arguments.js';
import type { ChatTurn } from './chat_turn.js';
import type { TurnDurability } from './durability.js';
import type { EngineDeps } from './generation.js';
import type { TurnLog } from './turn_log.js';
import { encodeCheckpointState } from './turn_codec.js';
import { stopped, type TurnOutcome } from './turn_outcome.js';

/**
 * One tool step, from "intent recorded" to "step checkpointed" (DESIGN §7.3): the assistant message and a PREPARED op per call
 * durable before anything runs; the batch fitted to the budget; each call answered; results and
 * checkpoint. A step the log already holds is not written again: an answered batch is charged
 * as it was, an unanswered one is answered from its ledger rows. Returns an outcome when the
 * turn must end here.
 */
export async function toolStep(turn: ChatTurn, durability: TurnDurability, deps: EngineDeps, log: TurnLog, logged: boolean, assistant: Message): Promise<TurnOutcome | undefined> {
  const step = turn.iteration;
  const uses = toolUses(assistant);
  if (logged) {
    const ops = log.opsOf(step);
    turn.transcript.push(assistant);
    const answer = log.takeAnswer();
    if (answer === undefined) return answerBatch(turn, durability, deps, uses, ops, 'log');
    // A bounced batch recorded no ops and charged nothing.
    if (ops.length > 0) planBatch(turn, uses);
    turn.transcript.push(answer);
    return undefined;
  }
  let ops: OpRecord[];
  try {
    ops = await durability.recordModelTurn(
      step,
      assistant,
      uses.map((use) => intentOf(turn, use)),
    );
  } catch (error) {
    if (!isLedgerIntentError(error)) throw error;
    // An empty or repeated call id: the whole batch goes back to the model, nothing runs.
    const renamed = withDistinctIds(assistant);
    const bounced: Message = {
      role: 'tool',
      content: toolUses(renamed).map((use) => ({ type: 'tool_result', toolUseId: use.id, content: `not run: ${error.message}; every call of this batch was refused`, isError: true })),
    };
    turn.transcript.push(renamed, bounced);
    await durability.checkpoint([renamed, bounced], encodeCheckpointState(turn), true);
    return undefined;
  }
  turn.transcript.push(assistant);
  deps.faults.reach('after_wi1', step);
  return answerBatch(turn, durability, deps, uses, ops, 'model');
}

/** Plans, runs and records one batch whose intents are in the ledger; `source` says whether its arguments are the model's or stored copies. */
async function answerBatch(
  turn: ChatTurn,
  durability: TurnDurability,
  deps: EngineDeps,
  uses: readonly ToolUseBlock[],
  ops: readonly OpRecord[],
  source: BatchSource,
): Promise<TurnOutcome | undefined> {
  const step = turn.iteration;
  const plans = planBatch(turn, uses);
  const batch = await runBatch(plans, new Map(ops.map((op) => [op.toolCallId, op])), {
    turn,
    durability,
    clock: deps.clock,
    faults: deps.faults,
    step,
    source,
    stats: deps.stats,
    onTool: deps.onToolActivity,
  });
  if (batch.manual.length > 0) return { kind: 'needs_manual_resolution', calls: batch.manual.map((op) => ({ op, label: callLabel(op, turn.transcript) })) };
  if (batch.asking.length > 0) return { kind: 'awaiting_approval', calls: batch.asking.map((op) => ({ op, label: callLabel(op, turn.transcript) })) };
  if (batch.stopped) return stopped(turn);
  const results: Message = { role: 'tool', content: batch.results };
  turn.transcript.push(results);
  await durability.checkpoint([results], encodeCheckpointState(turn), true, batch.settle);
  if (batch.settle.length > 0) deps.faults.reach('after_wi3', step);
  deps.faults.reach('after_wi4', step);
  return undefined;
}

function intentOf(turn: ChatTurn, use: ToolUseBlock): { toolCallId: string; toolName: string; input: ToolUseBlock['input']; effect: EffectClass } {
  return { toolCallId: use.id, toolName: use.name, input: use.input, effect: turn.tools.find((tool) => tool.name === use.name)?.effect ?? 'write' };
}

/** The assistant message with its empty and repeated call ids renamed, so that each call can be answered once. */
function withDistinctIds(assistant: Message): Message {
  const seen = new Set<string>();
  const content = assistant.content.map((block) => {
    if (block.type !== 'tool_use') return block;
    let id = block.id === '' ? 'call' : block.id;
    for (let n = 2; seen.has(id); n++) id = `${block.id === '' ? 'call' : block.id}_${n}`;
    seen.add(id);
    return { ...block, id };
  });
  return { ...assistant, content };
}
