/**
 * What operators read of the store (DESIGN §9.1, §9.2): the turns that match a filter with what
 * each waits for, one turn whole, the counts they watch, and the store's check of its own rows.
 */
import type { ProcessRecord, StoreCensus, TurnDetail, TurnFilter, TurnOverview, TurnWork } from '../operator_store.js';
import type { ReplyState } from '../reply_types.js';
import { turnFromRow, type TurnRow } from '../turn_rows.js';
import { dialect, now, query, queryOne, type Op } from './instructions.js';
import { opsOfTurn } from './ledger.js';
import { movesOfTurn } from './op_moves.js';
import { replyDelivery } from './replies.js';
import { checkpointMarks, loadTranscript } from './transcript.js';
import { turnById } from './turn_reads.js';
import { turnModelCalls } from './usage.js';

type OverviewRow = TurnRow & { awaiting_verdict: number; awaiting_approval: number; reply_state: ReplyState | null };

/** The turns matching `filter`, newest first, each with its calls awaiting a verdict or an approval and where its reply stands. */
export function* listTurns(filter: TurnFilter): Op<TurnOverview[]> {
  const { admissionOrder, inList } = yield* dialect();
  const where: string[] = [];
  const params: Record<string, unknown> = {};
  if (filter.statuses !== undefined) {
    where.push(inList('turns.status', 'statuses'));
    params['statuses'] = filter.statuses;
  }
  if (filter.source !== undefined) {
    where.push('turns.source = @source');
    params['source'] = filter.source;
  }
  if (filter.channelId !== undefined) {
    where.push('turns.channel_id = @channelId');
    params['channelId'] = filter.channelId;
  }
  if (filter.requesterId !== undefined) {
    where.push('turns.requester_id = @requesterId');
    params['requesterId'] = filter.requesterId;
  }
  if (filter.createdSince !== undefined) {
    where.push('turns.created_at >= @createdSince');
    params['createdSince'] = filter.createdSince;
  }
  if (filter.replyPending === true) where.push(`replies.state = 'pending'`);
  if (filter.strandedCalls === true) where.push(`turns.status <> 'ACTIVE' AND EXISTS (SELECT 1 FROM ops WHERE ops.turn_id = turns.turn_id AND ops.state = 'RUNNING')`);
  const { rows } = yield* query<OverviewRow>(
    `SELECT turns.*, replies.state AS reply_state,
       (SELECT COUNT(*) FROM ops WHERE ops.turn_id = turns.turn_id AND ops.state = 'MANUAL_RESOLUTION_REQUIRED') AS awaiting_verdict,
       (SELECT COUNT(*) FROM ops WHERE ops.turn_id = turns.turn_id AND ops.state = 'AWAITING_APPROVAL') AS awaiting_approval
     FROM turns LEFT JOIN replies USING (turn_id)
     ${where.length === 0 ? '' : `WHERE ${where.join(' AND ')}`}
     ORDER BY turns.created_at DESC, turns.${admissionOrder} DESC
     ${filter.limit === undefined ? '' : 'LIMIT CAST(@limit AS BIGINT)'}`,
    { ...params, ...(filter.limit === undefined ? {} : { limit: filter.limit }) },
  );
  return rows.map((row) => ({ turn: turnFromRow(row), callsAwaitingVerdict: row.awaiting_verdict, callsAwaitingApproval: row.awaiting_approval, reply: row.reply_state }));
}

/** One turn whole: its row, its ledger with its calls' moves, and its reply's delivery. */
export function* turnDetail(turnId: string): Op<TurnDetail | undefined> {
  const turn = yield* turnById(turnId);
  if (turn === undefined) return undefined;
  return { turn, ops: yield* opsOfTurn(turnId), moves: yield* movesOfTurn(turnId), reply: yield* replyDelivery(turnId) };
}

/** What one turn did: its transcript and checkpoints while its payload is kept, and every model call it made. */
export function* turnWork(turnId: string): Op<TurnWork | undefined> {
  const turn = yield* turnById(turnId);
  if (turn === undefined) return undefined;
  return {
    transcript: yield* loadTranscript(turnId),
    checkpoints: yield* checkpointMarks(turnId),
    modelCalls: yield* turnModelCalls(turn.identity),
  };
}

interface ProcessRow {
  readonly instance_id: string;
  readonly host: string;
  readonly pid: number;
  readonly shards: string | null;
  readonly started_at: number;
  readonly heartbeat_at: number;
  readonly stopped_at: number | null;
}

/** The processes registered in a store several share, most recently seen first; none where one process holds the store. */
export function* processes(): Op<ProcessRecord[]> {
  if (!(yield* dialect()).processTable) return [];
  const { rows } = yield* query<ProcessRow>('SELECT * FROM instances ORDER BY heartbeat_at DESC, instance_id', {});
  return rows.map((row) => ({
    instanceId: row.instance_id,
    host: row.host,
    pid: row.pid,
    shards: row.shards,
    startedAt: row.started_at,
    heartbeatAt: row.heartbeat_at,
    stoppedAt: row.stopped_at,
  }));
}

interface CensusRow {
  readonly active: number;
  readonly suspended: number;
  readonly awaiting_resolution: number;
  readonly calls_awaiting_verdict: number;
  readonly awaiting_approval: number;
  readonly calls_awaiting_approval: number;
  readonly replies_pending: number;
  readonly stranded_calls: number;
  readonly expired_leases: number;
}

/**
 * The counts an operator watches, in one statement: live turns by status, calls awaiting a
 * verdict or an approval, replies not yet delivered, calls stranded RUNNING, and leases past their end (judged by
 * the store's now, as every expiry is: DESIGN §7.7).
 */
export function* census(): Op<StoreCensus> {
  const at = yield* now();
  const row = yield* queryOne<CensusRow>(
    `SELECT
    (SELECT COUNT(*) FROM turns WHERE status = 'ACTIVE') AS active,
    (SELECT COUNT(*) FROM turns WHERE status = 'SUSPENDED') AS suspended,
    (SELECT COUNT(*) FROM turns WHERE status = 'AWAITING_RESOLUTION') AS awaiting_resolution,
    (SELECT COUNT(*) FROM ops WHERE state = 'MANUAL_RESOLUTION_REQUIRED') AS calls_awaiting_verdict,
    (SELECT COUNT(*) FROM turns WHERE status = 'AWAITING_APPROVAL') AS awaiting_approval,
    (SELECT COUNT(*) FROM ops WHERE state = 'AWAITING_APPROVAL') AS calls_awaiting_approval,
    (SELECT COUNT(*) FROM replies WHERE state = 'pending') AS replies_pending,
    (SELECT COUNT(*) FROM ops JOIN turns ON turns.turn_id = ops.turn_id WHERE ops.state = 'RUNNING' AND turns.status <> 'ACTIVE') AS stranded_calls,
    (SELECT COUNT(*) FROM turns WHERE status = 'ACTIVE' AND lease_expires_at <= @now) AS expired_leases`,
    { now: at },
  );
  if (row === undefined) throw new Error('the census statement answered no row');
  return {
    active: row.active,
    suspended: row.suspended,
    awaitingResolution: row.awaiting_resolution,
    callsAwaitingVerdict: row.calls_awaiting_verdict,
    awaitingApproval: row.awaiting_approval,
    callsAwaitingApproval: row.calls_awaiting_approval,
    repliesPending: row.replies_pending,
    strandedCalls: row.stranded_calls,
    expiredLeases: row.expired_leases,
  };
}

/**
 * The invariants of the store's rows that no constraint states: a lease is held exactly while a
 * turn is ACTIVE, a parked turn awaits a verdict on some call, a checkpoint covers no more
 * transcript than is stored, and a call's moves go with its ledger row. The database's own check of its pages, and of the blobs the rows
 * refer to, is the driver's.
 */
export function* rowProblems(): Op<string[]> {
  const { rows } = yield* query<{ problem: string }>(ROW_PROBLEMS);
  return rows.map((row) => row.problem);
}

const ROW_PROBLEMS = `
  SELECT problem FROM (
    SELECT 'turn ' || turn_id || ' is ACTIVE without a lease' AS problem, 1 AS kind, turn_id AS subject FROM turns
    WHERE status = 'ACTIVE' AND (lease_token IS NULL OR lease_expires_at IS NULL)
    UNION ALL
    SELECT 'turn ' || turn_id || ' is ' || status || ' but holds a lease', 2, turn_id FROM turns
    WHERE status <> 'ACTIVE' AND (lease_token IS NOT NULL OR lease_expires_at IS NOT NULL)
    UNION ALL
    SELECT 'turn ' || turn_id || ' is AWAITING_RESOLUTION but no call of it awaits a verdict', 3, turn_id FROM turns
    WHERE status = 'AWAITING_RESOLUTION' AND NOT EXISTS (SELECT 1 FROM ops WHERE ops.turn_id = turns.turn_id AND ops.state = 'MANUAL_RESOLUTION_REQUIRED')
    UNION ALL
    SELECT 'turn ' || checkpoints.turn_id || ' has a checkpoint covering ' || transcript_length || ' transcript rows but ' || COUNT(transcript.seq) || ' are stored', 4, checkpoints.turn_id
    FROM checkpoints LEFT JOIN transcript ON transcript.turn_id = checkpoints.turn_id
    GROUP BY checkpoints.turn_id, checkpoints.seq, transcript_length HAVING transcript_length > COUNT(transcript.seq)
    UNION ALL
    SELECT 'call ' || turn_id || '/' || step || '/' || tool_call_id || ' has moves but no row in the ledger', 5, turn_id FROM op_moves
    WHERE NOT EXISTS (SELECT 1 FROM ops WHERE ops.turn_id = op_moves.turn_id AND ops.step = op_moves.step AND ops.tool_call_id = op_moves.tool_call_id)
    GROUP BY turn_id, step, tool_call_id
  ) AS found
  ORDER BY kind, subject, problem`;
