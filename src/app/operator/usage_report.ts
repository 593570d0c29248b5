import { assertNever } from '../../core/assert_never.js';
import type { UsageGrouping, UsagePeriod, UsageRow } from '../../turn_state/usage_store.js';
import { EXIT, type ExitStatus } from '../exit_status.js';
import type { OperatorContext } from './operator_context.js';
import { jsonDocument, usageRowJson } from './operator_json.js';
import { renderTable } from './text_table.js';

/** What `holdfast usage` was asked for. */
export interface UsageReportRequest {
  readonly period: UsagePeriod;
  readonly by?: UsageGrouping;
  readonly json: boolean;
}

/** The header of the column that names each row's user, channel, server, model or day. */
const KEY_HEADER: Readonly<Record<UsageGrouping, string>> = { user: 'USER', channel: 'CHANNEL', server: 'SERVER', model: 'MODEL', day: 'DAY' };

const COUNT_HEADERS = ['CALLS', 'INPUT', 'CACHED', 'OUTPUT', 'REASONING', 'COST'];

/**
 * `holdfast usage`: the daily totals of the period (DESIGN §10.1), one row of totals or one row
 * per user, channel, server, model or day in the store's order (largest spender first; days oldest first), as a table or
 * as `{"period":{…},"by":…,"rows":[…]}`.
 */
export async function usageReport(context: OperatorContext, request: UsageReportRequest): Promise<ExitStatus> {
  const rows = await context.operator.usage({ period: request.period, ...(request.by === undefined ? {} : { by: request.by }) });
  if (request.json) {
    context.out(jsonDocument({ period: request.period, by: request.by ?? null, rows: rows.map((row) => usageRowJson(row, request.by !== undefined)) }));
    return EXIT.ok;
  }
  const period = periodText(request.period);
  if (rows.length === 0) {
    context.out(`No usage was recorded ${period}.\n`);
    return EXIT.ok;
  }
  const table = renderTable(
    headersOf(request.by),
    rows.map((row) => cellsOf(row, request.by)),
  );
  const unknown = rows.reduce((sum, row) => sum + row.unknownCalls, 0);
  const note = unknown === 0 ? '' : `${unknown} call${unknown === 1 ? '' : 's'} reported no token counts: their tokens are not in these totals.\n`;
  context.out(`Usage ${period}:\n${table}${note}`);
  return EXIT.ok;
}

/** The table's columns: the key when grouped; turns and refusals except by model, which counts neither (a turn is counted against its owner, not a model). */
function headersOf(by: UsageGrouping | undefined): string[] {
  return [...(by === undefined ? [] : [KEY_HEADER[by]]), ...(by === 'model' ? [] : ['TURNS', 'REFUSED']), ...COUNT_HEADERS];
}

/** One row's cells, as {@link headersOf} names them: a key that is empty (no server) as `-`, an unpriced cost as `-`. */
function cellsOf(row: UsageRow, by: UsageGrouping | undefined): string[] {
  const key = by === undefined ? [] : [row.key === '' ? '-' : row.key];
  const turns = by === 'model' ? [] : [row.turns, row.refusals];
  const counts = [...turns, row.calls, row.inputTokens, row.cachedInputTokens, row.outputTokens, row.reasoningTokens].map(String);
  return [...key, ...counts, row.cost === null ? '-' : row.cost.toFixed(4)];
}

/** The period as the text says it: `over the last 7 days`, `today`, `this month`. */
function periodText(period: UsagePeriod): string {
  switch (period.kind) {
    case 'today':
      return 'today';
    case 'month':
      return 'this month';
    case 'days':
      return `over the last ${period.days} day${period.days === 1 ? '' : 's'}`;
    default:
      return assertNever(period);
  }
}
