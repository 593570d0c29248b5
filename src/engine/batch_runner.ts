import type { Clock } from '../core/clock.js';
import type { JsonObject, ToolResultBlock } from '../llm/protocol.js';
import { runTool } from '../tools/run_tool.js';
import type { Tool, ToolOutcome } from '../tools/tool.js';
import type { EffectClass, OpMove, OpRecord, OpSettlement } from '../turn_state/ledger_types.js';
import { warnOutcomeUnknown } from '../turn_state/outcome_unknown_log.js';
import { immediateMoves, keptMoves, type BatchMoves } from './batch_moves.js';
import type { CallPlan } from './batch_plan.js';
import { callArguments, WITHHELD_CALL, WITHHELD_READ, WITHHELD_RETRY, type BatchSource } from './call_arguments.js';
import type { ChatTurn } from './chat_turn.js';
import type { TurnDurability } from './durability.js';
import type { FaultInjector } from './fault_points.js';
import { isShutdownReason } from './shutdown_reason.js';
import { assertNever } from '../core/assert_never.js';
import { deniedResult, UNKEPT_APPROVAL, verdictResult } from './verdict_results.js';
import { isStaleTurnError, isTurnStateUnavailable } from '../turn_state/errors.js';
import type { TurnStats } from './turn_stats.js';
import type { CallTrace } from './call_trace.js';

export interface BatchContext {
  readonly turn: ChatTurn;
  readonly durability: TurnDurability;
  readonly clock: Clock;
  readonly faults: FaultInjector;
  readonly step: number;
  readonly source: BatchSource;
  readonly stats: TurnStats | undefined;
  readonly onTool?: ((activity: ToolActivity) => void) | undefined;
  /** The span of the call being settled, when the turn is traced. */
  readonly call?: CallTrace;
}

/**
 * A tool call that starts or stops running: what runs now, for showing where the turn stands. A
 * call that stopped running says what it came to (`outcome`; none when it threw).
 */
export type ToolActivity =
  | { readonly type: 'started'; readonly toolCallId: string; readonly toolName: string; readonly effect: EffectClass }
  | { readonly type: 'finished'; readonly toolCallId: string; readonly toolName: string; readonly effect: EffectClass; readonly outcome?: ToolOutcome };

/**
 * The answers of a batch, in call order; `manual` lists writes whose outcome nobody can know;
 * `asking`, calls that wait for a person's approval before anything but the batch's reads runs.
 */
export interface BatchResult {
  readonly results: ToolResultBlock[];
  readonly manual: OpRecord[];
  readonly asking: OpRecord[];
  /** /stop arrived: calls not yet started were not run. */
  readonly stopped: boolean;
  /** A read-only batch's moves, to be written with the step's checkpoint. */
  readonly settle: readonly OpSettlement[];
}

/**
 * Answers every call of a planned batch (the durable points "call marked running" and "call settled", DESIGN §7.3). A call the ledger has
 * already settled is answered from the ledger; a PREPARED call runs now, marked RUNNING first
 * (unless it is a read) so a crash can never hide that its effect may have begun; an uncertain
 * outcome follows its effect class (§6): a `read` just reports it, an `idempotent` call is
 * re-sent once with the same key, a `write` stops the turn for an operator's verdict, which
 * answers it once given (§9.1). A batch of reads runs concurrently and leaves its moves for the
 * step's checkpoint (`settle`). A tool runs with the model's arguments as proposed; on a resume,
 * a call whose stored arguments had a secret scrubbed out is never run with them: it is answered
 * with an error instead (or, for an uncertain call with an effect, left to a person).
 */
export async function runBatch(plans: readonly CallPlan[], ops: ReadonlyMap<string, OpRecord>, context: BatchContext): Promise<BatchResult> {
  const asking = context.durability.durable ? plans.flatMap((plan) => (asksApproval(plan, ops) ? [opOf(plan, ops)] : [])) : [];
  if (asking.length > 0) return askFirst(plans, ops, asking, context);
  const manual: OpRecord[] = [];
  const readOnly = plans.every((plan) => plan.kind === 'refuse' || plan.tool.effect === 'read');
  const moves = readOnly ? keptMoves() : immediateMoves(context.durability);
  const answer = async (plan: CallPlan): Promise<ToolResultBlock> => {
    const settled = await settleTraced(plan, opOf(plan, ops), context, moves);
    if (settled.manual !== undefined) manual.push(settled.manual);
    return settled.block;
  };
  if (readOnly) {
    const results = await Promise.all(plans.map(answer));
    // A batch that stops for a person writes no checkpoint, and so none of its moves: its reads run again on resume.
    return { results, manual, asking: [], stopped: false, settle: manual.length === 0 ? moves.kept : [] };
  }
  const results: ToolResultBlock[] = [];
  for (const plan of plans) {
    if (manual.length > 0 || (context.turn.signal.aborted && plan.kind === 'run' && notStarted(opOf(plan, ops)))) {
      return { results, manual, asking: [], stopped: manual.length === 0, settle: [] };
    }
    results.push(await answer(plan));
  }
  return { results, manual, asking: [], stopped: false, settle: [] };
}

/** Whether a planned call is to ask for approval now: its tool needs it here and it was never asked. */
function asksApproval(plan: CallPlan, ops: ReadonlyMap<string, OpRecord>): boolean {
  return plan.kind === 'run' && plan.tool.approval === 'required' && opOf(plan, ops).state === 'PREPARED';
}

/**
 * A batch some of whose calls ask for approval (DESIGN §9.2): its reads that need none run at once,
 * each move written as it is made, since no checkpoint follows before the turn parks; everything
 * else waits, in order, for the answers, and the batch is answered whole once they are in.
 */
async function askFirst(plans: readonly CallPlan[], ops: ReadonlyMap<string, OpRecord>, asking: OpRecord[], context: BatchContext): Promise<BatchResult> {
  const moves = immediateMoves(context.durability);
  const reads = plans.filter((plan) => plan.kind === 'run' && plan.tool.effect === 'read' && !asksApproval(plan, ops) && notStarted(opOf(plan, ops)));
  const settled = await Promise.all(reads.map((plan) => settleTraced(plan, opOf(plan, ops), context, moves)));
  const manual = settled.flatMap((answered) => (answered.manual === undefined ? [] : [answered.manual]));
  return { results: [], manual, asking: manual.length === 0 ? asking : [], stopped: false, settle: [] };
}

/** A call whose effect has not begun: never run, or approved and not yet run. */
function notStarted(op: OpRecord): boolean {
  return op.state === 'PREPARED' || op.state === 'APPROVED';
}

function opOf(plan: CallPlan, ops: ReadonlyMap<string, OpRecord>): OpRecord {
  const op = ops.get(plan.use.id);
  if (op === undefined) throw new Error(`no ledger row for call ${plan.use.id}`);
  return op;
}

/** {@link settle} under the call's span when the turn is traced (DESIGN §10.3): each move the call makes is an event of it. */
async function settleTraced(plan: CallPlan, op: OpRecord, context: BatchContext, moves: BatchMoves): Promise<{ block: ToolResultBlock; manual?: OpRecord }> {
  const call = context.turn.trace?.call(op);
  if (call === undefined) return settle(plan, op, context, moves);
  const watched: BatchMoves = {
    immediate: moves.immediate,
    kept: moves.kept,
    record: async (before, move) => {
      const moved = await moves.record(before, move);
      call.moved(moved);
      return moved;
    },
  };
  try {
    const settled = await settle(plan, op, { ...context, call }, watched);
    call.answered(settled.block);
    return settled;
  } catch (error) {
    call.threw(error);
    throw error;
  }
}

async function settle(plan: CallPlan, op: OpRecord, context: BatchContext, moves: BatchMoves): Promise<{ block: ToolResultBlock; manual?: OpRecord }> {
  const key = { turnId: op.turnId, step: op.step, toolCallId: op.toolCallId };
  // An operator's verdict is the truth about the call, whatever the tool's permissions are now.
  if (op.state === 'RESOLVED_APPLIED' || op.state === 'RESOLVED_NOT_APPLIED') return { block: verdictResult(plan.use.id, { ...op, state: op.state }) };
  if (plan.kind === 'refuse') {
    const refused = notStarted(op) ? await moves.record(op, { to: 'DEFINITELY_FAILED', error: plan.error }) : op;
    return { block: errorBlock(plan.use.id, refused.error ?? plan.error) };
  }
  switch (op.state) {
    case 'APPLIED':
    case 'RECONCILED_APPLIED':
      return { block: resultBlock(plan, op.result ?? '') };
    case 'DEFINITELY_FAILED':
    case 'RECONCILED_FAILED':
      return { block: errorBlock(plan.use.id, op.error ?? 'the call failed') };
    case 'DENIED':
      return { block: deniedResult(plan.use.id, op) };
    case 'AWAITING_APPROVAL':
      throw new Error(`call ${op.toolCallId} still waits for approval: its turn cannot be running`);
    case 'PREPARED':
    case 'APPROVED': {
      if (plan.tool.approval === 'required' && op.state === 'PREPARED') {
        const refused = await moves.record(op, { to: 'DEFINITELY_FAILED', error: UNKEPT_APPROVAL });
        return { block: errorBlock(plan.use.id, refused.error ?? UNKEPT_APPROVAL) };
      }
      // A read needs no RUNNING mark: cut short, it is simply run again (DESIGN §7.3).
      const unmarked = plan.tool.effect === 'read' && op.effect === 'read';
      const input = callArguments(context.source, plan.use, op);
      if (input === undefined) {
        const why = unmarked ? WITHHELD_READ : WITHHELD_CALL;
        const withheld = await moves.record(op, { to: 'DEFINITELY_FAILED', error: why });
        return { block: errorBlock(plan.use.id, withheld.error ?? why) };
      }
      const running = unmarked ? op : await context.durability.moveOp(key, { to: 'RUNNING' });
      if (running !== op) {
        context.call?.moved(running);
        context.faults.reach('after_wi2', context.step);
      }
      const ran = await execute(plan.tool, op, input, context, 'first');
      context.faults.reach('after_tool', context.step);
      const recorded = await recordRan(moves, running, ran, context);
      if (recorded === undefined) return unrecorded(plan, running);
      const { op: settled, outcome } = recorded;
      if (moves.immediate) context.faults.reach('after_wi3', context.step);
      if (outcome.kind !== 'uncertain') return { block: blockOf(plan, outcome) };
      const { turn } = context;
      warnOutcomeUnknown(turn.logger, { ...settled, channelId: turn.identity.channelId, requesterId: turn.requester.userId });
      return afterUncertain(plan, settled, context, moves);
    }
    case 'OUTCOME_UNKNOWN':
      return afterUncertain(plan, op, context, moves);
    case 'RUNNING':
    case 'MANUAL_RESOLUTION_REQUIRED':
      return { block: errorBlock(plan.use.id, op.error ?? 'outcome unknown'), manual: op };
    default:
      return assertNever(op.state);
  }
}

/**
 * §6: a read may run again (its first attempt stays charged); an idempotent call is re-sent with
 * its key; a write waits for a person. A call whose arguments are not in hand as proposed is not
 * run again: a read is answered with an error, an idempotent call waits for a person too.
 */
async function afterUncertain(plan: CallPlan & { kind: 'run' }, op: OpRecord, context: BatchContext, moves: BatchMoves): Promise<{ block: ToolResultBlock; manual?: OpRecord }> {
  const input = callArguments(context.source, plan.use, op);
  switch (plan.tool.effect) {
    case 'read': {
      if (input === undefined) return { block: errorBlock(plan.use.id, WITHHELD_RETRY) };
      const outcome = await execute(plan.tool, op, input, context, 'again');
      return { block: outcome.kind === 'result' ? resultBlock(plan, outcome.text) : errorBlock(plan.use.id, outcome.error) };
    }
    case 'idempotent': {
      if (input === undefined) return { block: errorBlock(plan.use.id, op.error ?? 'outcome unknown'), manual: op };
      const again = await execute(plan.tool, op, input, context, 'again');
      if (again.kind === 'uncertain') return { block: errorBlock(plan.use.id, again.error), manual: op };
      const recorded = await recordRan(moves, op, again, context);
      return recorded === undefined ? unrecorded(plan, op) : { block: blockOf(plan, recorded.outcome) };
    }
    case 'write':
      return { block: errorBlock(plan.use.id, op.error ?? 'outcome unknown'), manual: op };
    default:
      return assertNever(plan.tool.effect);
  }
}

/** The signal of a call /stop does not reach: one for all of them, since it never aborts. */
const UNSTOPPABLE = new AbortController().signal;

/** A call's first run, which /stop may cut short for a cancellable tool, or a re-run to settle an uncertain one, which it never does. */
type Attempt = 'first' | 'again';

async function execute(tool: Tool, op: OpRecord, input: JsonObject, context: BatchContext, attempt: Attempt): Promise<ToolOutcome> {
  const { turn } = context;
  context.stats?.toolCalled();
  const call = { toolCallId: op.toolCallId, toolName: tool.name, effect: tool.effect };
  context.onTool?.({ type: 'started', ...call });
  // /stop reaches only a tool that can tell its target to stop; any other settles within its own timeout.
  const stop = attempt === 'first' && tool.cancellable === true ? stopOnly(turn.signal) : undefined;
  let outcome: ToolOutcome | undefined;
  try {
    outcome = await runTool(
      tool,
      input,
      {
        signal: stop?.signal ?? UNSTOPPABLE,
        idempotencyKey: op.idempotencyKey,
        requesterId: turn.requester.userId,
        channel: { source: turn.identity.source, channelId: turn.identity.channelId },
        logger: turn.logger,
        ...(context.call?.traceparent === undefined ? {} : { traceparent: context.call.traceparent }),
      },
      context.clock,
    );
    return outcome;
  } finally {
    stop?.release();
    context.onTool?.({ type: 'finished', ...call, ...(outcome === undefined ? {} : { outcome }) });
  }
}

/** A signal that aborts with the turn's on /stop, but not when the bot shuts down: then a running call settles and the turn is suspended after it. */
function stopOnly(turnSignal: AbortSignal): { readonly signal: AbortSignal; release(): void } {
  const controller = new AbortController();
  const follow = (): void => {
    if (!isShutdownReason(turnSignal.reason)) controller.abort(turnSignal.reason);
  };
  if (turnSignal.aborted) follow();
  else turnSignal.addEventListener('abort', follow, { once: true });
  return { signal: controller.signal, release: () => turnSignal.removeEventListener('abort', follow) };
}

/**
 * Records what a call that ran came to ("call settled"), or what its re-send settled an uncertain call to.
 * A call that may have run is never left where it stands (DESIGN §9.3): an outcome the store
 * cannot keep as it is (a fault of the code around the store, not the store failing) is recorded
 * as a stand-in the store can keep, which the model is given too; when the outcome is uncertain
 * already, when the store itself failed, or when even the stand-in cannot be written, nothing is
 * recorded (`undefined`) and the call is left to an operator's verdict.
 */
async function recordRan(moves: BatchMoves, op: OpRecord, outcome: ToolOutcome, context: BatchContext): Promise<{ op: OpRecord; outcome: ToolOutcome } | undefined> {
  const call = { call: op.toolCallId, tool: op.toolName };
  try {
    return { op: await moves.record(op, moveFor(op, outcome)), outcome };
  } catch (error) {
    if (isStaleTurnError(error)) throw error;
    context.turn.logger.error({ err: error, ...call }, `the outcome of ${op.toolName} could not be recorded`);
    if (isTurnStateUnavailable(error) || outcome.kind === 'uncertain') return undefined;
    const standIn = unstorableStandIn(outcome, error);
    try {
      return { op: await moves.record(op, moveFor(op, standIn)), outcome: standIn };
    } catch (again) {
      if (isStaleTurnError(again)) throw again;
      context.turn.logger.error({ err: again, ...call }, `nor could a note in place of the outcome of ${op.toolName}: it waits for an operator's verdict`);
      return undefined;
    }
  }
}

/** The longest start of an answer the store could not keep that its stand-in quotes. */
const STAND_IN_EXCERPT_CHARS = 500;

/** What stands for an outcome the store could not keep: a note, then the start of the answer, which is no longer JSON. */
function unstorableStandIn(outcome: Exclude<ToolOutcome, { kind: 'uncertain' }>, error: unknown): Exclude<ToolOutcome, { kind: 'uncertain' }> {
  const text = outcome.kind === 'result' ? outcome.text : outcome.error;
  const why = error instanceof Error ? error.message : String(error);
  const note =
    `[the tool's answer (${text.length} characters) could not be stored (${why.slice(0, 200)}); its first ` + `${STAND_IN_EXCERPT_CHARS} characters follow]\n${text.slice(0, STAND_IN_EXCERPT_CHARS)}`;
  return outcome.kind === 'result' ? { kind: 'result', text: note } : { kind: 'failed', error: note };
}

/** A call whose outcome could not be recorded: it waits for an operator's verdict, like an uncertain write. */
function unrecorded(plan: CallPlan & { kind: 'run' }, op: OpRecord): { block: ToolResultBlock; manual: OpRecord } {
  return { block: errorBlock(plan.use.id, `the outcome of ${op.toolName} could not be recorded`), manual: op };
}

/** The move that records `outcome`: a first run settles from RUNNING (or PREPARED, for a read), a re-send reconciles an uncertain call. */
function moveFor(op: OpRecord, outcome: ToolOutcome): OpMove {
  const reconciling = op.state === 'OUTCOME_UNKNOWN';
  switch (outcome.kind) {
    case 'result':
      return { to: reconciling ? 'RECONCILED_APPLIED' : 'APPLIED', result: outcome.text };
    case 'failed':
      return { to: reconciling ? 'RECONCILED_FAILED' : 'DEFINITELY_FAILED', error: outcome.error };
    case 'uncertain':
      return { to: 'OUTCOME_UNKNOWN', error: outcome.error };
    default:
      return assertNever(outcome);
  }
}

function blockOf(plan: CallPlan & { kind: 'run' }, outcome: ToolOutcome): ToolResultBlock {
  return outcome.kind === 'result' ? resultBlock(plan, outcome.text) : errorBlock(plan.use.id, outcome.error);
}

function resultBlock(plan: CallPlan & { kind: 'run' }, text: string): ToolResultBlock {
  return { type: 'tool_result', toolUseId: plan.use.id, content: text + (plan.warning ?? ''), isError: false };
}

function errorBlock(toolUseId: string, error: string): ToolResultBlock {
  return { type: 'tool_result', toolUseId, content: error, isError: true };
}
