import { isAdmin } from '../tools/permissions.js';
import type { ConversationDeps } from './conversation_deps.js';
import { modelHealthLines } from './model_health.js';
import { channelKey, postNotice } from './notices.js';
import type { InboundMessage } from './transport.js';
import type { RunningTurn } from './turn_runner.js';

/** `/stop`: the channel's running turn is cancelled, when its requester or an admin asks. */
export function stopCommand(origin: InboundMessage, running: ReadonlyMap<string, RunningTurn>, deps: Pick<ConversationDeps, 'config' | 'sink'>): void {
  const turn = running.get(channelKey(origin));
  if (turn === undefined) return postNotice(deps.sink, origin, null, 'status', 'Nothing is running in this channel.');
  if (turn.requesterId !== origin.authorId && !isAdmin(deps.config.permissions, origin.authorId)) {
    return postNotice(deps.sink, origin, turn.turnId, 'status', 'Only the person who asked, or an admin, can stop this.');
  }
  turn.controller.abort();
}

/** `/status`: what is running in the channel, how many saved requests wait there, and any model that is overloaded or failing. */
export async function statusCommand(origin: InboundMessage, running: ReadonlyMap<string, RunningTurn>, deps: Pick<ConversationDeps, 'store' | 'sink' | 'recovery'>): Promise<void> {
  const turn = running.get(channelKey(origin));
  const suspended = (await deps.store?.listSuspended({ source: origin.source, channelId: origin.channelId })) ?? [];
  const lines = [
    turn === undefined ? 'Nothing is running in this channel.' : `Working on a request (turn ${turn.turnId}).`,
    suspended.length === 0 ? 'No saved requests are waiting.' : `${suspended.length} saved request${suspended.length === 1 ? '' : 's'} can be continued with \`resume\`.`,
    ...modelHealthLines(deps.recovery),
  ];
  postNotice(deps.sink, origin, turn?.turnId ?? null, 'status', lines.join('\n'));
}
