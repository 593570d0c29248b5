/**
 * What an operator answers from the console (DESIGN §10.2): a verdict on an uncertain call, or an
 * answer to a request for approval, recorded through the same operator paths as
 * `holdfast turns resolve|approve|deny`, under `web:<name>`, and logged.
 */
import { giveApproval, giveVerdict } from '../../conversation/operators/operator_actions.js';
import { shortTurnId } from '../../engine/call_label.js';
import type { Logger } from '../../core/logger.js';
import type { OperatorStore } from '../../turn_state/operator_store.js';
import type { Flash, WebSession } from './web_sessions.js';

/** The two kinds of answer, as the forms post them: to `/calls/verdict` and `/calls/approval`. */
export type CallAnswer = 'verdict' | 'approval';

/** Who an answer is recorded under. */
export function webOperatorName(session: WebSession): string {
  return `web:${session.name}`;
}

/**
 * Records the answer `form` carries (`turn`, `call` as `STEP:CALL`, `verdict`, and `text` or
 * `note`) for `session`, and says what became of it in the words the next page shows.
 */
export async function answerCall(kind: CallAnswer, form: URLSearchParams, session: WebSession, operator: OperatorStore, logger: Logger): Promise<Flash> {
  const turn = form.get('turn') ?? '';
  const call = form.get('call') ?? '';
  const given = form.get('verdict') ?? '';
  const words = (form.get(kind === 'verdict' ? 'text' : 'note') ?? '').trim();
  const by = webOperatorName(session);
  const short = shortTurnId(turn);
  if (kind === 'verdict') {
    if (given !== 'applied' && given !== 'not_applied') return { kind: 'refused', text: `A verdict is applied or not_applied, not “${given}”.` };
    const attempt = await giveVerdict(operator, { turn, call, verdict: given, text: words === '' ? null : words, by });
    if (attempt.kind === 'refused') return refused(logger, by, attempt.message);
    const { label } = attempt;
    logger.info({ component: 'web', by, turn, call: label, verdict: given }, `${by} recorded a verdict: call ${label} of turn ${short} ${given}`);
    const next = attempt.remaining === 0 ? 'awaits no more verdicts: the bot tells the requester and goes on with it' : `still has ${attempt.remaining} call(s) awaiting a verdict`;
    return { kind: 'done', text: `Recorded by ${by}: call ${label} of turn ${short} ${given === 'applied' ? 'took effect' : 'did not take effect'} (${attempt.op.state}). The turn ${next}.` };
  }
  if (given !== 'approved' && given !== 'denied') return { kind: 'refused', text: `An answer is approved or denied, not “${given}”.` };
  const attempt = await giveApproval(operator, { turn, call, verdict: given, note: words === '' ? null : words, by });
  if (attempt.kind === 'refused') return refused(logger, by, attempt.message);
  logger.info({ component: 'web', by, turn, call: attempt.label, verdict: given }, `${by} answered a request for approval: call ${attempt.label} of turn ${short} ${given}`);
  const next = attempt.remaining === 0 ? 'waits for no more approvals: the bot goes on with it in its channel' : `still has ${attempt.remaining} call(s) waiting for approval`;
  return { kind: 'done', text: `Recorded by ${by}: call ${attempt.label} of turn ${short} ${given} (${attempt.op.state}). The turn ${next}.` };
}

function refused(logger: Logger, by: string, message: string): Flash {
  logger.warn({ component: 'web', by }, `${by} was refused: ${message}`);
  return { kind: 'refused', text: `Refused: ${message}.` };
}
