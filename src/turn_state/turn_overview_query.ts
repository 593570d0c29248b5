import type { TurnFilter, TurnOverview } from './operator_store.js';
import type { ReplyState } from './reply_types.js';
import { turnFromRow, type TurnRow } from './turn_rows.js';

/** A row {@link turnOverviewQuery} answers. */
export type OverviewRow = TurnRow & { awaiting_verdict: number; reply_state: ReplyState | null };

/**
 * The operators' list of turns matching `filter`, newest first, as one statement with `@name`
 * parameters that both backends run; `tieBreak` is the column that orders turns created in the
 * same millisecond (SQLite's `rowid`, PostgreSQL's `admitted`).
 */
export function turnOverviewQuery(filter: TurnFilter, tieBreak: string): { readonly sql: string; readonly params: Record<string, unknown> } {
  const where: string[] = [];
  const params: Record<string, unknown> = {};
  if (filter.statuses !== undefined) {
    where.push(`turns.status IN (${filter.statuses.map((_, i) => `@status${i}`).join(', ') || 'NULL'})`);
    filter.statuses.forEach((status, i) => (params[`status${i}`] = status));
  }
  if (filter.source !== undefined) {
    where.push('turns.source = @source');
    params['source'] = filter.source;
  }
  if (filter.channelId !== undefined) {
    where.push('turns.channel_id = @channelId');
    params['channelId'] = filter.channelId;
  }
  if (filter.replyPending === true) where.push(`replies.state = 'pending'`);
  if (filter.strandedCalls === true) where.push(`turns.status <> 'ACTIVE' AND EXISTS (SELECT 1 FROM ops WHERE ops.turn_id = turns.turn_id AND ops.state = 'RUNNING')`);
  const sql = `SELECT turns.*, replies.state AS reply_state,
       (SELECT COUNT(*) FROM ops WHERE ops.turn_id = turns.turn_id AND ops.state = 'MANUAL_RESOLUTION_REQUIRED') AS awaiting_verdict
     FROM turns LEFT JOIN replies USING (turn_id)
     ${where.length === 0 ? '' : `WHERE ${where.join(' AND ')}`}
     ORDER BY turns.created_at DESC, turns.${tieBreak} DESC`;
  return { sql, params };
}

/** A turn as the operators' list shows it, from its row. */
export function overviewFromRow(row: OverviewRow): TurnOverview {
  return { turn: turnFromRow(row), callsAwaitingVerdict: row.awaiting_verdict, reply: row.reply_state };
}
