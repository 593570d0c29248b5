import { assertNever } from '../../core/assert_never.js';
import type { ModelCallRecord } from '../operator_store.js';
import type { TurnIdentity } from '../turn_types.js';
import {
  LIMIT_WINDOW_MS,
  type LimitKind,
  type LimitScope,
  type ModelCallUsage,
  type ScopeLimit,
  type TurnSpent,
  type UsageAdmission,
  type UsageAdmissionRequest,
  type UsageGrouping,
  type UsageOwner,
  type UsagePeriod,
  type UsageQuery,
  type UsageRetention,
  type UsageRow,
} from '../usage_store.js';
import { exclusive, now, query, queryOne, type Op } from './instructions.js';

const DAY_MS = 86_400_000;

interface CountedTurnRow {
  readonly user_id: string;
  readonly server_id: string;
  readonly refused_scope: LimitScope | null;
  readonly refused_kind: LimitKind | null;
  readonly refused_max: number | null;
  readonly refused_used: number | null;
  readonly resets_at: number | null;
}

/**
 * Counts a message's turn against its owner unless a limit is reached (DESIGN §10.1). The check
 * and the count are one step that takes turns with every other admission of every process, so
 * that two processes never let one owner past a limit together; a message seen before keeps the
 * answer it had.
 */
export function* admitUsage(request: UsageAdmissionRequest): Op<UsageAdmission> {
  if (request.limits.length > 0) yield* exclusive('usage limits');
  const seen = yield* countedTurn(request.identity);
  if (seen !== undefined) return admissionOf(seen);
  const at = yield* now();
  for (const limit of request.limits) {
    const owner = ownerIn(request.owner, limit.scope);
    if (owner === undefined) continue;
    const window = yield* windowOf(limit, owner, request.owner.source, at);
    const used = window.reduce((sum, entry) => sum + entry.amount, 0);
    if (used < limit.max) continue;
    const refusal: UsageAdmission = { kind: 'refused', limit, used, resetsAt: resetTime(window, used, limit) };
    yield* insertCountedTurn(request, at, refusal);
    yield* addToDay(request.owner, '', at, { refusals: 1 });
    return refusal;
  }
  yield* insertCountedTurn(request, at, { kind: 'counted' });
  yield* addToDay(request.owner, '', at, { turns: 1 });
  return { kind: 'counted' };
}

/** Adds one step's model calls to the usage of the turn of `identity`, counted against the owner its admission recorded (else `requesterId` alone). */
export function* recordUsage(identity: TurnIdentity, requesterId: string, calls: readonly ModelCallUsage[]): Op<void> {
  if (calls.length === 0) return;
  const at = yield* now();
  let counted = yield* countedTurn(identity);
  if (counted === undefined) {
    // A turn admitted before its usage was counted: it is owned by its requester alone from now on.
    yield* insertCountedTurn({ identity, owner: { source: identity.source, userId: requesterId, channelId: identity.channelId }, limits: [] }, at, { kind: 'counted' });
    counted = { user_id: requesterId, server_id: '', refused_scope: null, refused_kind: null, refused_max: null, refused_used: null, resets_at: null };
  }
  const owner: UsageOwner = { source: identity.source, userId: counted.user_id, channelId: identity.channelId, serverId: counted.server_id };
  for (const call of calls) {
    const unknown = call.inputTokens === null && call.outputTokens === null;
    yield* query(
      `INSERT INTO usage_calls (source, channel_id, message_id, user_id, server_id, called_at, model, input_tokens, output_tokens, cached_input_tokens, reasoning_tokens, cost)
       VALUES (@source, @channelId, @messageId, @userId, @serverId, @at, @model, @input, @output, @cached, @reasoning, @cost)`,
      { ...identity, userId: owner.userId, serverId: counted.server_id, at, ...callColumns(call) },
    );
    yield* addToDay(owner, call.model, at, {
      calls: 1,
      unknownCalls: unknown ? 1 : 0,
      inputTokens: call.inputTokens ?? 0,
      cachedInputTokens: call.cachedInputTokens ?? 0,
      outputTokens: call.outputTokens ?? 0,
      reasoningTokens: call.reasoningTokens ?? 0,
      cost: call.cost,
    });
  }
}

/** The tokens and cost of every model call the turn of `identity` made, over all its runs. */
export function* turnSpent(identity: TurnIdentity): Op<TurnSpent> {
  const row = yield* queryOne<{ tokens: number | null; cost: number | null }>(
    `SELECT CAST(SUM(COALESCE(input_tokens, 0) + COALESCE(output_tokens, 0)) AS BIGINT) AS tokens, SUM(cost) AS cost
     FROM usage_calls WHERE source = @source AND channel_id = @channelId AND message_id = @messageId`,
    { ...identity },
  );
  return { tokens: row?.tokens ?? 0, cost: row?.cost ?? null };
}

/** Every model call the turn of `identity` made, over all its runs, in order. */
export function* turnModelCalls(identity: TurnIdentity): Op<ModelCallRecord[]> {
  const { rows } = yield* query<{ called_at: number; model: string; input_tokens: number | null; output_tokens: number | null; cost: number | null }>(
    `SELECT called_at, model, input_tokens, output_tokens, cost FROM usage_calls
     WHERE source = @source AND channel_id = @channelId AND message_id = @messageId ORDER BY called_at, id`,
    { ...identity },
  );
  return rows.map((row) => ({ calledAt: row.called_at, model: row.model, inputTokens: row.input_tokens, outputTokens: row.output_tokens, cost: row.cost }));
}

/** The daily totals of `query.period`, filtered and grouped as asked, largest spender first. */
export function* usageReport(request: UsageQuery): Op<UsageRow[]> {
  const from = firstDayOf(request.period, yield* now());
  const key = request.by === undefined ? "''" : groupColumn(request.by);
  const conditions = ['day >= @from'];
  if (request.filter !== undefined) conditions.push(`${scopeColumn(request.filter.scope)} = @filterId`);
  if (request.filter?.source !== undefined) conditions.push('source = @source');
  if (request.by === 'model') conditions.push("model <> ''");
  const { rows } = yield* query<ReportRow>(
    `SELECT ${key} AS key, CAST(SUM(turns) AS BIGINT) AS turns, CAST(SUM(refusals) AS BIGINT) AS refusals, CAST(SUM(calls) AS BIGINT) AS calls,
       CAST(SUM(unknown_calls) AS BIGINT) AS unknown_calls, CAST(SUM(input_tokens) AS BIGINT) AS input_tokens, CAST(SUM(cached_input_tokens) AS BIGINT) AS cached_input_tokens,
       CAST(SUM(output_tokens) AS BIGINT) AS output_tokens, CAST(SUM(reasoning_tokens) AS BIGINT) AS reasoning_tokens, SUM(cost) AS cost
     FROM usage_days WHERE ${conditions.join(' AND ')}
     ${request.by === undefined ? '' : `GROUP BY ${key} ORDER BY ${request.by === 'day' ? 'day' : `SUM(input_tokens) + SUM(output_tokens) DESC, SUM(turns) DESC, ${key}`}`}
     LIMIT CAST(@limit AS BIGINT)`,
    { from, filterId: request.filter?.id ?? null, source: request.filter?.source ?? null, limit: request.limit ?? 1_000_000 },
  );
  return rows.filter((row) => row.turns !== null).map(rowOf);
}

/** Deletes detailed usage past `detailDays` (never less than a day, which the windows read) and daily totals past `dailyDays`. */
export function* sweepUsage(retention: UsageRetention): Op<number> {
  const at = yield* now();
  const detailBefore = at - Math.max(1, retention.detailDays) * DAY_MS;
  const calls = yield* query('DELETE FROM usage_calls WHERE called_at < @before', { before: detailBefore });
  const turns = yield* query('DELETE FROM usage_turns WHERE counted_at < @before', { before: detailBefore });
  const days = yield* query('DELETE FROM usage_days WHERE day < @before', { before: dayOf(at - retention.dailyDays * DAY_MS) });
  return calls.changes + turns.changes + days.changes;
}

function* countedTurn(identity: TurnIdentity): Op<CountedTurnRow | undefined> {
  return yield* queryOne<CountedTurnRow>(
    `SELECT user_id, server_id, refused_scope, refused_kind, refused_max, refused_used, resets_at FROM usage_turns
     WHERE source = @source AND channel_id = @channelId AND message_id = @messageId`,
    { ...identity },
  );
}

function admissionOf(row: CountedTurnRow): UsageAdmission {
  if (row.refused_scope === null || row.refused_kind === null) return { kind: 'counted' };
  return { kind: 'refused', limit: { scope: row.refused_scope, kind: row.refused_kind, max: row.refused_max ?? 0 }, used: row.refused_used ?? 0, resetsAt: row.resets_at ?? 0 };
}

function* insertCountedTurn(request: UsageAdmissionRequest, at: number, admission: UsageAdmission): Op<void> {
  const refused = admission.kind === 'refused' ? admission : undefined;
  yield* query(
    `INSERT INTO usage_turns (source, channel_id, message_id, user_id, server_id, counted_at, refused_scope, refused_kind, refused_max, refused_used, resets_at)
     VALUES (@source, @channelId, @messageId, @userId, @serverId, @at, @scope, @kind, @max, @used, @resetsAt)`,
    {
      ...request.identity,
      userId: request.owner.userId,
      serverId: request.owner.serverId ?? '',
      at,
      scope: refused?.limit.scope ?? null,
      kind: refused?.limit.kind ?? null,
      max: refused?.limit.max ?? null,
      used: refused?.used ?? null,
      resetsAt: refused?.resetsAt ?? null,
    },
  );
}

/** What counts in a limit's window, oldest first: each turn counted, or each call's tokens. */
function* windowOf(limit: ScopeLimit, ownerId: string, source: string, at: number): Op<{ readonly at: number; readonly amount: number }[]> {
  const column = scopeColumn(limit.scope);
  const params = { ownerId, source, since: at - LIMIT_WINDOW_MS[limit.kind] };
  switch (limit.kind) {
    case 'turns_per_hour': {
      const { rows } = yield* query<{ at: number }>(
        `SELECT counted_at AS at FROM usage_turns WHERE source = @source AND ${column} = @ownerId AND counted_at > @since AND refused_kind IS NULL ORDER BY counted_at`,
        params,
      );
      return rows.map((row) => ({ at: row.at, amount: 1 }));
    }
    case 'tokens_per_day': {
      const { rows } = yield* query<{ at: number; amount: number }>(
        `SELECT called_at AS at, COALESCE(input_tokens, 0) + COALESCE(output_tokens, 0) AS amount FROM usage_calls
         WHERE source = @source AND ${column} = @ownerId AND called_at > @since ORDER BY called_at`,
        params,
      );
      return rows;
    }
    default:
      return assertNever(limit.kind);
  }
}

/** When the window's count falls below the limit again: as soon as enough of its oldest entries have slid out. */
function resetTime(window: readonly { readonly at: number; readonly amount: number }[], used: number, limit: ScopeLimit): number {
  let remaining = used;
  for (const entry of window) {
    remaining -= entry.amount;
    if (remaining < limit.max) return entry.at + LIMIT_WINDOW_MS[limit.kind];
  }
  return (window.at(-1)?.at ?? 0) + LIMIT_WINDOW_MS[limit.kind];
}

function ownerIn(owner: UsageOwner, scope: LimitScope): string | undefined {
  switch (scope) {
    case 'user':
      return owner.userId;
    case 'channel':
      return owner.channelId;
    case 'server':
      return owner.serverId === undefined || owner.serverId === '' ? undefined : owner.serverId;
    default:
      return assertNever(scope);
  }
}

function scopeColumn(scope: LimitScope): string {
  switch (scope) {
    case 'user':
      return 'user_id';
    case 'channel':
      return 'channel_id';
    case 'server':
      return 'server_id';
    default:
      return assertNever(scope);
  }
}

function groupColumn(by: UsageGrouping): string {
  return by === 'model' || by === 'day' ? by : scopeColumn(by);
}

interface DayCounts {
  readonly turns?: number;
  readonly refusals?: number;
  readonly calls?: number;
  readonly unknownCalls?: number;
  readonly inputTokens?: number;
  readonly cachedInputTokens?: number;
  readonly outputTokens?: number;
  readonly reasoningTokens?: number;
  readonly cost?: number | null;
}

/** Adds `counts` to the owner's row of the day of `at` for `model` (`''` for turns and refusals). */
function* addToDay(owner: UsageOwner, model: string, at: number, counts: DayCounts): Op<void> {
  yield* query(
    `INSERT INTO usage_days (day, source, user_id, channel_id, server_id, model, turns, refusals, calls, unknown_calls, input_tokens, cached_input_tokens, output_tokens, reasoning_tokens, cost)
     VALUES (@day, @source, @userId, @channelId, @serverId, @model, @turns, @refusals, @calls, @unknownCalls, @inputTokens, @cachedInputTokens, @outputTokens, @reasoningTokens, @cost)
     ON CONFLICT (day, source, user_id, channel_id, server_id, model) DO UPDATE SET
       turns = usage_days.turns + excluded.turns, refusals = usage_days.refusals + excluded.refusals, calls = usage_days.calls + excluded.calls,
       unknown_calls = usage_days.unknown_calls + excluded.unknown_calls, input_tokens = usage_days.input_tokens + excluded.input_tokens,
       cached_input_tokens = usage_days.cached_input_tokens + excluded.cached_input_tokens, output_tokens = usage_days.output_tokens + excluded.output_tokens,
       reasoning_tokens = usage_days.reasoning_tokens + excluded.reasoning_tokens,
       cost = CASE WHEN excluded.cost IS NULL THEN usage_days.cost ELSE COALESCE(usage_days.cost, 0) + excluded.cost END`,
    {
      day: dayOf(at),
      source: owner.source,
      userId: owner.userId,
      channelId: owner.channelId,
      serverId: owner.serverId ?? '',
      model,
      turns: counts.turns ?? 0,
      refusals: counts.refusals ?? 0,
      calls: counts.calls ?? 0,
      unknownCalls: counts.unknownCalls ?? 0,
      inputTokens: counts.inputTokens ?? 0,
      cachedInputTokens: counts.cachedInputTokens ?? 0,
      outputTokens: counts.outputTokens ?? 0,
      reasoningTokens: counts.reasoningTokens ?? 0,
      cost: counts.cost ?? null,
    },
  );
}

function callColumns(call: ModelCallUsage): Record<string, unknown> {
  return {
    model: call.model,
    input: call.inputTokens,
    output: call.outputTokens,
    cached: call.cachedInputTokens ?? null,
    reasoning: call.reasoningTokens ?? null,
    cost: call.cost,
  };
}

/** The UTC day of `at`, as `YYYY-MM-DD`: the key of the daily totals. */
function dayOf(at: number): string {
  return new Date(at).toISOString().slice(0, 10);
}

function firstDayOf(period: UsagePeriod, at: number): string {
  switch (period.kind) {
    case 'today':
      return dayOf(at);
    case 'month':
      return `${dayOf(at).slice(0, 7)}-01`;
    case 'days':
      return dayOf(at - (Math.max(1, period.days) - 1) * DAY_MS);
    default:
      return assertNever(period);
  }
}

interface ReportRow {
  readonly key: string;
  readonly turns: number | null;
  readonly refusals: number;
  readonly calls: number;
  readonly unknown_calls: number;
  readonly input_tokens: number;
  readonly cached_input_tokens: number;
  readonly output_tokens: number;
  readonly reasoning_tokens: number;
  readonly cost: number | null;
}

function rowOf(row: ReportRow): UsageRow {
  return {
    key: row.key,
    turns: row.turns ?? 0,
    refusals: row.refusals,
    calls: row.calls,
    unknownCalls: row.unknown_calls,
    inputTokens: row.input_tokens,
    cachedInputTokens: row.cached_input_tokens,
    outputTokens: row.output_tokens,
    reasoningTokens: row.reasoning_tokens,
    cost: row.cost,
  };
}
