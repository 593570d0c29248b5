import { turnsToShow } from '../../conversation/operators/operator_actions.js';
import { shortTurnId } from '../../engine/call_label.js';
import type { TurnFilter, TurnOverview } from '../../turn_state/operator_store.js';
import type { TurnStatus } from '../../turn_state/turn_types.js';
import { EXIT, type ExitStatus } from '../exit_status.js';
import type { OperatorContext } from './operator_context.js';
import { jsonDocument, overviewJson, turnReason } from './operator_json.js';
import { formatAge, renderTable } from './text_table.js';

/** What `holdfast turns list` was asked for. */
export interface TurnsListRequest {
  readonly statuses?: readonly TurnStatus[];
  readonly channel?: string;
  readonly json: boolean;
}

/**
 * `holdfast turns list`: the turns asked for, newest first — without statuses, what needs
 * attention (suspended, awaiting resolution or approval, replies not yet delivered) — as a table
 * or as `{"turns":[…]}`.
 */
export async function turnsList(context: OperatorContext, request: TurnsListRequest): Promise<ExitStatus> {
  const filter: TurnFilter = { ...(request.statuses === undefined ? {} : { statuses: request.statuses }), ...(request.channel === undefined ? {} : { channelId: request.channel }) };
  const overviews = await turnsToShow(context.operator, filter);
  if (request.json) {
    context.out(jsonDocument({ turns: overviews.map((overview) => overviewJson(overview, context.now)) }));
    return EXIT.ok;
  }
  if (overviews.length === 0) {
    context.out(request.statuses === undefined ? 'No turn needs attention.\n' : 'No turn matches.\n');
    return EXIT.ok;
  }
  const rows = overviews.map((overview) => row(overview, context.now));
  context.out(renderTable(['TURN', 'STATUS', 'CHANNEL', 'REQUESTER', 'AGE', 'AWAITING', 'APPROVALS', 'REASON'], rows));
  return EXIT.ok;
}

function row({ turn, callsAwaitingVerdict, callsAwaitingApproval, reply }: TurnOverview, now: number): string[] {
  const reason = reply === 'pending' ? 'reply not yet delivered' : (turnReason(turn) ?? '-');
  return [
    shortTurnId(turn.turnId),
    turn.status,
    `${turn.identity.source}:${turn.identity.channelId}`,
    turn.requesterId,
    formatAge((now - turn.createdAt) / 1000),
    String(callsAwaitingVerdict),
    String(callsAwaitingApproval),
    reason,
  ];
}
