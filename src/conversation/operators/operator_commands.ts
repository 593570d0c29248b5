import { assertNever } from '../../core/assert_never.js';
import { ledgerCallLabel, shortTurnId } from '../../engine/call_label.js';
import { isAdmin } from '../../tools/permissions.js';
import type { OperatorStore } from '../../turn_state/operator_store.js';
import type { TurnRecord } from '../../turn_state/turn_types.js';
import { attentionAnswer, type AttentionItem } from './attention_list.js';
import type { ConversationDeps } from '../conversation_deps.js';
import { type ChannelScope, type Inbound, type InboundMessage, postNotice } from '../transport.js';
import { TEXTS } from '../notices/texts.js';
import { adminsOnlyText, notRecordedText } from '../notices/command_texts.js';
import { verdictPhrase } from './resolution_notices.js';
import { findTurn, giveVerdict, turnsToShow, type VerdictAttempt } from './operator_actions.js';

/** The admins' commands (DESIGN §9.1): list what needs attention, give a verdict. */
export type OperatorCommand = Extract<Inbound, { readonly kind: 'turns' | 'resolve' }>;

type OperatorDeps = Pick<ConversationDeps, 'config' | 'sink' | 'clock' | 'logger' | 'store' | 'operator'>;

/**
 * Answers an admin's `/turns` or `/resolve` at once, to them alone; anyone else is refused
 * before anything is read. A verdict that leaves none of its turn's calls waiting calls
 * `announce` (which must not throw), so that the requester is told in their channel at once.
 * Never throws: a failure is logged and answered.
 */
export async function operatorCommand(command: OperatorCommand, deps: OperatorDeps, announce: () => Promise<void>): Promise<void> {
  const { origin } = command;
  if (!isAdmin(deps.config.permissions, origin.authorId)) return answer(deps, origin, adminsOnlyText(command.kind));
  const { operator } = deps;
  if (!deps.store.durable) return answer(deps, origin, TEXTS.storeOff);
  try {
    switch (command.kind) {
      case 'turns':
        return answer(deps, origin, attentionAnswer(await attentionIn(operator, command.scope, origin.source), command.scope, deps.clock.now()));
      case 'resolve': {
        const { verdict } = command;
        if (verdict !== 'applied' && verdict !== 'not_applied') return answer(deps, origin, notRecordedText(`a verdict is \`applied\` or \`not_applied\`, not \`${verdict}\``));
        const attempt = await verdictIn(operator, { ...command, verdict });
        answer(deps, origin, verdictAnswer(attempt, command.call, command.scope));
        if (attempt.kind === 'recorded' && attempt.remaining === 0) await announce();
        return;
      }
      default:
        return assertNever(command);
    }
  } catch (error) {
    deps.logger.error({ err: error, command: command.kind, user: origin.authorId }, 'an operator’s command failed');
    answer(deps, origin, TEXTS.commandFailed);
  }
}

function answer(deps: Pick<ConversationDeps, 'sink'>, origin: InboundMessage, text: string): void {
  postNotice(deps.sink, origin, null, 'operator', text);
}

/** The turns of `source` that need attention in `scope`, with the calls of each parked one that await a verdict. */
async function attentionIn(operator: OperatorStore, scope: ChannelScope, source: string): Promise<AttentionItem[]> {
  const overviews = await turnsToShow(operator, { source });
  const items: AttentionItem[] = [];
  for (const { turn, reply } of overviews) {
    if (!(await scope.includes(turn.identity.channelId))) continue;
    const ops = turn.status === 'AWAITING_RESOLUTION' ? ((await operator.turnDetail(turn.turnId))?.ops ?? []) : [];
    const calls = ops.filter((op) => op.state === 'MANUAL_RESOLUTION_REQUIRED').map((op) => ({ toolName: op.toolName, label: ledgerCallLabel(op, ops) }));
    items.push({ turn, reply, calls });
  }
  return items;
}

/**
 * Gives the verdict `command` asks for, on a turn of its scope only: a turn elsewhere is
 * answered as not found, and only the scope's turns are named when a prefix is ambiguous.
 */
async function verdictIn(operator: OperatorStore, command: Extract<OperatorCommand, { kind: 'resolve' }> & { readonly verdict: 'applied' | 'not_applied' }): Promise<VerdictAttempt> {
  const { origin, scope } = command;
  const lookup = await findTurn(operator, command.turn);
  const candidates = lookup.kind === 'found' ? [lookup.turn] : lookup.kind === 'ambiguous' ? lookup.candidates : [];
  const here: TurnRecord[] = [];
  for (const turn of candidates) if (turn.identity.source === origin.source && (await scope.includes(turn.identity.channelId))) here.push(turn);
  const [only] = here;
  if (only === undefined) return { kind: 'refused', reason: 'turn_not_found', message: `there is no turn ${command.turn} in ${scope.name}` };
  if (here.length > 1) {
    return { kind: 'refused', reason: 'turn_ambiguous', message: `${command.turn} names several turns in ${scope.name} (${here.map((t) => t.turnId).join(', ')}); give more of the id` };
  }
  return giveVerdict(operator, { turn: only.turnId, call: command.call, verdict: command.verdict, text: command.text, by: `${origin.source}:${origin.authorId}` });
}

/** What the admin is told of their verdict: what was recorded and what happens next, or why nothing was. */
function verdictAnswer(attempt: VerdictAttempt, call: string, scope: ChannelScope): string {
  if (attempt.kind === 'refused') return notRecordedText(attempt.message);
  const { op, turn, remaining } = attempt;
  const recorded = `Recorded: \`${op.toolName}\` (call ${call}) of turn ${shortTurnId(turn.turnId)} ${verdictPhrase(op) ?? op.state}.`;
  if (remaining > 0) return `${recorded} ${remaining} more call${remaining === 1 ? '' : 's'} of this turn ${remaining === 1 ? 'awaits' : 'await'} a verdict.`;
  return (
    `${recorded} Every uncertain call of the turn has a verdict: ${scope.mentionUser(turn.requesterId)} is told in ` +
    `${scope.mentionChannel(turn.identity.channelId)}, and the request goes on by itself or at their \`resume\`.`
  );
}
