import type { TurnRecord } from '../../turn_state/turn_types.js';
import type { ConversationDeps } from '../conversation_deps.js';
import { othersSavedText, parkedLineText, savedLineText, TEXTS, yourSavedText } from './texts.js';
import { callsAwaitingVerdict } from '../operators/resolution_notices.js';
import { turnStoreTimings } from '../../turn_state/store_options.js';
import type { InboundMessage } from '../transport.js';

/** The longest stored reason `/status` repeats; a longer one is cut with an ellipsis. */
const REASON_LIMIT = 120;

type SavedDeps = Pick<ConversationDeps, 'config' | 'store' | 'clock'>;

/**
 * What `/status` says about the saved requests in the asker's channel: each of theirs with its
 * short id (what `/resume` takes), why it stopped, how long ago, and when its resume window
 * (`turn_state.resume_ttl_hours` from its last progress) closes; only a count of other people's.
 */
export async function savedRequestLines(origin: InboundMessage, deps: SavedDeps): Promise<string[]> {
  const suspended = await deps.store.listSuspended({ source: origin.source, channelId: origin.channelId });
  if (suspended.length === 0) return [TEXTS.noSavedRequests];
  const mine = suspended.filter((turn) => turn.requesterId === origin.authorId);
  const others = suspended.length - mine.length;
  const lines = mine.length === 0 ? [] : [yourSavedText(mine.length), ...mine.map((turn) => savedLine(turn, deps))];
  if (others > 0) lines.push(othersSavedText(others));
  return lines;
}

function savedLine(turn: TurnRecord, deps: SavedDeps): string {
  const now = deps.clock.now();
  const reason = turn.suspensionReason ?? 'no reason was recorded';
  const shown = reason.length > REASON_LIMIT ? `${reason.slice(0, REASON_LIMIT - 1)}…` : reason;
  const expiresAt = turn.lastProgressAt + turnStoreTimings(deps.config.turn_state).resumeTtlMs;
  return savedLineText(turn.turnId, now - turn.updatedAt, shown, expiresAt - now);
}

/** The asker's requests in this channel that wait for an operator's verdict (DESIGN §9.1), each with the calls it waits on. */
export async function parkedCallLines(origin: InboundMessage, deps: Pick<ConversationDeps, 'operator'>): Promise<string[]> {
  const { operator } = deps;
  const parked = await operator.listTurns({ statuses: ['AWAITING_RESOLUTION'], source: origin.source, channelId: origin.channelId });
  const lines: string[] = [];
  for (const { turn } of parked) {
    if (turn.requesterId !== origin.authorId) continue;
    const ops = (await operator.turnDetail(turn.turnId))?.ops ?? [];
    lines.push(parkedLineText(turn.turnId, callsAwaitingVerdict(ops)));
  }
  return lines;
}
