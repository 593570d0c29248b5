import { userInfo } from 'node:os';
import { giveVerdict } from '../../conversation/operators/operator_actions.js';
import { verdictPhrase } from '../../conversation/operators/resolution_notices.js';
import { shortTurnId } from '../../engine/call_label.js';
import { EXIT, type ExitStatus } from '../exit_status.js';
import type { OperatorContext } from './operator_context.js';
import { jsonDocument } from './operator_json.js';
import { oneLine } from './text_table.js';

/** What `holdfast turns resolve` was asked for. */
export interface TurnsResolveRequest {
  readonly turn: string;
  readonly call: string;
  readonly verdict: 'applied' | 'not_applied';
  readonly text: string | null;
  readonly json: boolean;
}

/** Who gives a verdict from the command line: `cli:` and the name of the user running it. */
export function cliOperatorName(): string {
  try {
    const name = userInfo().username;
    return name === '' ? 'cli:unknown' : `cli:${name}`;
  } catch {
    // A user without a name in the system's user database (some containers).
    return 'cli:unknown';
  }
}

/**
 * `holdfast turns resolve TURN CALL`: records the operator's verdict on one call awaiting it
 * (DESIGN §9.1) and says what was recorded and what remains; with `--json`,
 * `{"turn","call","state","remaining","turn_status"}`. A turn or call that does not exist, a
 * prefix or call id that names several, or a call that takes no verdict, is refused with status 3.
 */
export async function turnsResolve(context: OperatorContext, request: TurnsResolveRequest): Promise<ExitStatus> {
  const attempt = await giveVerdict(context.operator, { turn: request.turn, call: request.call, verdict: request.verdict, text: request.text, by: cliOperatorName() });
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
  const recorded = `Recorded: call ${label} (${op.toolName}) of turn ${short} ${oneLine(verdictPhrase(op) ?? '')} — ${op.state}, by ${op.verdict?.by ?? ''}.\n`;
  const next =
    remaining === 0
      ? `Turn ${short} awaits no more verdicts and is resumable (${turn.status}): the running bot tells the requester and goes on with it, by itself or at their \`resume\`.\n`
      : `${remaining} more call(s) of turn ${short} await a verdict: holdfast turns show ${short}\n`;
  context.out(recorded + next);
  return EXIT.ok;
}
