import { ledgerCallLabel, shortTurnId } from '../engine/call_label.js';
import type { TurnRecord } from '../turn_state/turn_types.js';
import type { ConversationDeps } from './conversation_deps.js';
import { spanText } from './time_spans.js';
import type { InboundMessage } from './transport.js';

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
  if (suspended.length === 0) return ['No saved requests are waiting.'];
  const mine = suspended.filter((turn) => turn.requesterId === origin.authorId);
  const others = suspended.length - mine.length;
  const lines = mine.length === 0 ? [] : [`Your saved request${mine.length === 1 ? '' : 's'} (\`resume <id>\` continues one):`, ...mine.map((turn) => savedLine(turn, deps))];
  if (others > 0) lines.push(`${others} saved request${others === 1 ? '' : 's'} of other people ${others === 1 ? 'waits' : 'wait'} here.`);
  return lines;
}

function savedLine(turn: TurnRecord, deps: SavedDeps): string {
  const now = deps.clock.now();
  const reason = turn.suspensionReason ?? 'no reason was recorded';
  const shown = reason.length > REASON_LIMIT ? `${reason.slice(0, REASON_LIMIT - 1)}…` : reason;
  const expiresAt = turn.lastProgressAt + deps.config.turn_state.resume_ttl_hours * 3_600_000;
  return `• \`${shortTurnId(turn.turnId)}\` stopped ${spanText(now - turn.updatedAt)} ago (${shown}); expires in ${spanText(expiresAt - now)}`;
}

/** The asker's requests in this channel that wait for an operator's verdict (DESIGN §9.1), each with the calls it waits on. */
export async function parkedCallLines(origin: InboundMessage, deps: Pick<ConversationDeps, 'operator'>): Promise<string[]> {
  const { operator } = deps;
  const parked = await operator.listTurns({ statuses: ['AWAITING_RESOLUTION'], source: origin.source, channelId: origin.channelId });
  const lines: string[] = [];
  for (const { turn } of parked) {
    if (turn.requesterId !== origin.authorId) continue;
    const ops = (await operator.turnDetail(turn.turnId))?.ops ?? [];
    const calls = ops.filter((op) => op.state === 'MANUAL_RESOLUTION_REQUIRED').map((op) => `\`${op.toolName}\` (call ${ledgerCallLabel(op, ops)})`);
    lines.push(`Your request \`${shortTurnId(turn.turnId)}\` waits for an operator to check whether ${calls.join(', ') || 'its uncertain calls'} took effect.`);
  }
  return lines;
}
