import { giveApproval } from '../../conversation/operators/operator_actions.js';
import { shortTurnId } from '../../engine/call_label.js';
import type { ApprovalVerdict } from '../../turn_state/ledger_types.js';
import { EXIT, type ExitStatus } from '../exit_status.js';
import type { OperatorContext } from './operator_context.js';
import { jsonDocument } from './operator_json.js';
import { oneLine } from './text_table.js';
import { cliOperatorName } from './turns_resolve.js';

/** What `holdfast turns approve` or `holdfast turns deny` was asked for. */
export interface TurnsApprovalRequest {
  readonly turn: string;
  readonly call: string;
  readonly verdict: ApprovalVerdict;
  readonly note: string | null;
  readonly json: boolean;
}

/**
 * `holdfast turns approve|deny TURN CALL`: records the operator's answer to one call that waits
 * for approval (DESIGN §9.2), by `cli:<user>`, and says what was recorded and what remains; the
 * running bot goes on with the turn by itself once nothing of it waits. With `--json`,
 * `{"turn","call","state","remaining","turn_status"}`. A turn or call that does not exist, a
 * prefix or call id that names several, or a call that does not wait for approval (said what
 * became of it), is refused with status 3.
 */
export async function turnsApproval(context: OperatorContext, request: TurnsApprovalRequest): Promise<ExitStatus> {
  const attempt = await giveApproval(context.operator, { turn: request.turn, call: request.call, verdict: request.verdict, note: request.note, by: cliOperatorName() });
  if (attempt.kind === 'refused') {
    context.err(`holdfast: ${attempt.message}\n`);
    return EXIT.refused;
  }
  const { op, turn, remaining, label } = attempt;
  if (request.json) {
    context.out(jsonDocument({ turn: turn.turnId, call: label, state: op.state, remaining, turn_status: turn.status }));
    return EXIT.ok;
  }
  const short = shortTurnId(turn.turnId);
  const note = request.note === null ? '' : `: ${oneLine(op.approval?.decision?.note ?? '')}`;
  const recorded = `Recorded: call ${label} (${op.toolName}) of turn ${short} ${request.verdict}${note} — ${op.state}, by ${op.approval?.decision?.by ?? ''}.\n`;
  const next =
    remaining === 0
      ? `Turn ${short} waits for no more approvals (${turn.status}): the running bot goes on with it in its channel within seconds.\n`
      : `${remaining} more call(s) of turn ${short} wait for approval: holdfast turns show ${short}\n`;
  context.out(recorded + next);
  return EXIT.ok;
}
