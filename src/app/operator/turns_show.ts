import { findTurn } from '../../conversation/operators/operator_actions.js';
import { parseTraceparent } from '../../core/tracing.js';
import { ledgerCallLabel, shortTurnId } from '../../engine/call_label.js';
import type { OpApproval, OpRecord } from '../../turn_state/ledger_types.js';
import type { ReplyDelivery, TurnDetail } from '../../turn_state/operator_store.js';
import { EXIT, type ExitStatus } from '../exit_status.js';
import type { OperatorContext } from './operator_context.js';
import { callJson, isoTime, jsonDocument, replyJson, turnJson, turnReason } from './operator_json.js';
import { formatAge, oneLine, renderTable, shortened } from './text_table.js';

/** The most characters of a call's input, result or error the text output shows. */
const SHOWN_CHARS = 400;

/** What `holdfast turns show` was asked for. */
export interface TurnsShowRequest {
  readonly turn: string;
  readonly json: boolean;
}

/**
 * `holdfast turns show TURN`: the turn, its ledger and its reply's delivery, as text or as
 * `{"turn":{…},"calls":[…],"reply":{…}|null}`; a traced turn names the trace of each of its runs. A turn that does not exist, or a prefix that
 * names several, is refused with status 3.
 */
export async function turnsShow(context: OperatorContext, request: TurnsShowRequest): Promise<ExitStatus> {
  const lookup = await findTurn(context.operator, request.turn);
  if (lookup.kind === 'not_found') return refuse(context, `no turn ${request.turn}`);
  if (lookup.kind === 'ambiguous') return refuse(context, `${request.turn} names several turns (${lookup.candidates.map((turn) => turn.turnId).join(', ')}); give more of the id`);
  const detail = await context.operator.turnDetail(lookup.turn.turnId);
  if (detail === undefined) return refuse(context, `no turn ${request.turn}`);
  const awaiting = detail.ops.filter((op) => op.state === 'MANUAL_RESOLUTION_REQUIRED').length;
  const asking = detail.ops.filter((op) => op.state === 'AWAITING_APPROVAL').length;
  if (request.json) {
    context.out(
      jsonDocument({
        turn: { ...turnJson(detail.turn, context.now), calls_awaiting_verdict: awaiting, calls_awaiting_approval: asking, trace_ids: traceIds(detail.turn.traces) },
        calls: detail.ops.map((op) => callJson(op, detail.ops)),
        reply: detail.reply === null ? null : replyJson(detail.reply),
      }),
    );
    return EXIT.ok;
  }
  context.out(describe(detail, context.now));
  return EXIT.ok;
}

/** The trace id of each traced run of the turn, oldest first (DESIGN §10.3): what a trace viewer finds it by. */
function traceIds(traces: readonly string[]): string[] {
  return traces.flatMap((traceparent) => parseTraceparent(traceparent)?.traceId ?? []);
}

function refuse(context: OperatorContext, message: string): ExitStatus {
  context.err(`holdfast: ${message}\n`);
  return EXIT.refused;
}

function describe(detail: TurnDetail, now: number): string {
  const { turn, ops } = detail;
  const fields: [string, string][] = [
    ['status', turn.status],
    ['channel', `${turn.identity.source}:${turn.identity.channelId}`],
    ['message', turn.identity.messageId],
    ['requester', turn.requesterId],
    ['created', `${isoTime(turn.createdAt) ?? ''} (${formatAge((now - turn.createdAt) / 1000)} ago)`],
    ['updated', isoTime(turn.updatedAt) ?? ''],
    ['reason', turnReason(turn) ?? '-'],
    ...(turn.traces.length === 0 ? [] : [['traces', traceIds(turn.traces).join(' ')] as [string, string]]),
  ];
  const head = `Turn ${turn.turnId}\n${fields.map(([name, value]) => `  ${name.padEnd(10)}${oneLine(value)}`).join('\n')}\n`;
  const awaiting = ops.filter((op) => op.state === 'MANUAL_RESOLUTION_REQUIRED');
  const verdictLine = (op: OpRecord): string =>
    `Record a verdict: holdfast turns resolve ${shortTurnId(turn.turnId)} ${ledgerCallLabel(op, ops)} --applied [--result TEXT] | --not-applied [--note TEXT]`;
  const answerLine = (op: OpRecord): string => {
    const command = `${shortTurnId(turn.turnId)} ${ledgerCallLabel(op, ops)} [--note TEXT]`;
    return `Answer the request for approval: holdfast turns approve ${command} | holdfast turns deny ${command}`;
  };
  const lines = [...awaiting.map(verdictLine), ...ops.filter((op) => op.state === 'AWAITING_APPROVAL').map(answerLine)];
  const hint = lines.length === 0 ? '' : `\n${lines.join('\n')}\n`;
  return `${head}\n${calls(ops)}\n${reply(detail.reply)}${hint}`;
}

function calls(ops: readonly OpRecord[]): string {
  if (ops.length === 0) return 'Calls: none\n';
  const table = renderTable(
    ['STEP', 'CALL', 'TOOL', 'EFFECT', 'STATE'],
    ops.map((op) => [String(op.step), ledgerCallLabel(op, ops), op.toolName, op.effect, op.state]),
  );
  const details = ops.map((op) => {
    const lines = [`  input: ${shortened(JSON.stringify(op.input), SHOWN_CHARS)}${op.inputRedacted ? ' (secrets redacted)' : ''}`];
    if (op.result !== null) lines.push(`  result: ${shortened(op.result, SHOWN_CHARS)}`);
    if (op.error !== null) lines.push(`  error: ${shortened(op.error, SHOWN_CHARS)}`);
    if (op.verdict !== null) {
      const found = op.state === 'RESOLVED_APPLIED' ? 'applied' : 'not applied';
      lines.push(`  verdict: ${found} by ${oneLine(op.verdict.by)} at ${isoTime(op.verdict.at) ?? ''}${op.verdict.text === null ? '' : `: ${shortened(op.verdict.text, SHOWN_CHARS)}`}`);
    }
    if (op.approval !== null) lines.push(`  approval: ${approvalLine(op.approval)}`);
    return `${ledgerCallLabel(op, ops)} (step ${op.step}):\n${lines.join('\n')}\n`;
  });
  return `Calls:\n${table}\n${details.join('')}`;
}

/** A call's request for approval: when it was asked, and until when it waits or who answered it, when, and their note. */
function approvalLine(approval: OpApproval): string {
  const asked = `asked ${isoTime(approval.requestedAt) ?? ''}`;
  const { decision } = approval;
  if (decision === null) return `${asked}, waits until ${isoTime(approval.expiresAt) ?? ''}`;
  const note = decision.note === null ? '' : `: ${shortened(decision.note, SHOWN_CHARS)}`;
  return `${asked}, ${decision.verdict} by ${oneLine(decision.by)} at ${isoTime(decision.at) ?? ''}${note}`;
}

function reply(delivery: ReplyDelivery | null): string {
  if (delivery === null) return 'Reply: none\n';
  const delivered = delivery.deliveredAt === null ? '' : `, delivered ${isoTime(delivery.deliveredAt) ?? ''}`;
  const failure = delivery.failure === null ? '' : ` (${oneLine(delivery.failure)})`;
  return `Reply: ${delivery.state}${failure}, ${delivery.partsDelivered} part(s) delivered, stored ${isoTime(delivery.createdAt) ?? ''}${delivered}\n`;
}
