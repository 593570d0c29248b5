/**
 * The console's health page (DESIGN §10.2): the bot processes sharing the store and when each was
 * last seen, the models' capacity breakers and the subsystem guard as the serving process knows
 * them, the store's counts, and the tokens spent per day as a small chart.
 */
import type { ModelBreakerRegistry } from '../../recovery/breaker_registry.js';
import type { SubsystemGuard } from '../../recovery/subsystem_guard.js';
import type { ProcessRecord, StoreCensus } from '../../turn_state/operator_store.js';
import type { UsageRow } from '../../turn_state/usage_store.js';
import { formatAge } from '../operator/text_table.js';
import { escapeHtml, page, table, utcTime, type PageFrame } from './web_pages.js';

/** The days the usage chart covers, today included. */
export const CHART_DAYS = 14;

/** What only a bot process knows: its breakers and its guard. The console serving alone has neither. */
export interface LiveRecovery {
  readonly breakers: Pick<ModelBreakerRegistry, 'modelSnapshots'>;
  readonly guard: Pick<SubsystemGuard, 'snapshots'>;
}

/** What the health page shows, read when it was asked for. */
export interface HealthView {
  readonly now: number;
  readonly census: StoreCensus;
  readonly processes: readonly ProcessRecord[];
  readonly live: LiveRecovery | undefined;
  /** The daily totals of the last {@link CHART_DAYS} days, oldest first. */
  readonly days: readonly UsageRow[];
}

/** The health page. */
export function healthPage(view: HealthView, frame: PageFrame): string {
  return page('Health', [processes(view), recovery(view.live), counts(view.census), usage(view)].join(''), frame);
}

function processes({ processes: found, now, live }: HealthView): string {
  if (found.length === 0) {
    const which = live === undefined ? 'the bot, when it runs, does not register in it' : 'the bot serving this page is the one';
    return `<section><h2>Processes</h2><p>This store keeps no registry of processes: a SQLite store is used by one bot process at a time, and ${which}.</p></section>`;
  }
  const rows = found.map((process) =>
    [
      process.instanceId,
      `${process.host}, pid ${process.pid}`,
      process.shards ?? 'all',
      `${utcTime(process.startedAt)} UTC`,
      process.stoppedAt === null ? `${formatAge((now - process.heartbeatAt) / 1000)} ago` : `stopped ${utcTime(process.stoppedAt)} UTC`,
    ].map(escapeHtml),
  );
  return `<section><h2>Processes</h2>${table('Bot processes sharing the store, most recently seen first', ['Instance', 'Where', 'Shards', 'Started', 'Last heartbeat'], rows)}</section>`;
}

function recovery(live: LiveRecovery | undefined): string {
  if (live === undefined)
    return (
      '<section><h2>Models and the guard</h2><p>Breakers and the subsystem guard live in each bot process: ' +
      'see its metrics (<code>holdfast_breaker_open</code>) or the console it serves.</p></section>'
    );
  const breakers = live.breakers.modelSnapshots().map(({ provider, model, snapshot }) => [provider, model, snapshot.state, String(snapshot.failedGenerations)].map(escapeHtml));
  const guard = live.guard.snapshots().map((health) => [health.name, health.status, String(health.consecutiveFailures)].map(escapeHtml));
  return (
    '<section><h2>Models and the guard</h2>' +
    (breakers.length === 0 ? '<p>No model was called yet.</p>' : table('Capacity breakers, one per model', ['Provider', 'Model', 'Breaker', 'Failed generations'], breakers)) +
    (guard.length === 0 ? '' : table('Subsystem guard', ['Subsystem', 'Health', 'Failures in a row'], guard)) +
    '</section>'
  );
}

function counts(census: StoreCensus): string {
  const rows: [string, number][] = [
    ['Turns running', census.active],
    ['Turns saved (resumable)', census.suspended],
    ['Calls awaiting a verdict', census.callsAwaitingVerdict],
    ['Calls awaiting approval', census.callsAwaitingApproval],
    ['Replies not yet delivered', census.repliesPending],
    ['Calls stranded RUNNING', census.strandedCalls],
    ['Leases past their end', census.expiredLeases],
  ];
  return `<section><h2>The store</h2>${table(
    'What the store holds now',
    ['What', 'How many'],
    rows.map(([what, n]) => [escapeHtml(what), String(n)]),
  )}</section>`;
}

/** Tokens per day as bars (an SVG drawn on the server, styled by the stylesheet), with the numbers in a table beside it. */
function usage({ days, now }: HealthView): string {
  const byDay = new Map(days.map((row) => [row.key, row]));
  const keys = Array.from({ length: CHART_DAYS }, (_, index) => new Date(now - (CHART_DAYS - 1 - index) * 86_400_000).toISOString().slice(0, 10));
  const tokens = keys.map((day) => {
    const row = byDay.get(day);
    return row === undefined ? 0 : row.inputTokens + row.outputTokens;
  });
  const top = Math.max(1, ...tokens);
  const [width, height, bar] = [CHART_DAYS * 40, 150, 28];
  const bars = tokens
    .map((value, index) => {
      const tall = Math.round((value / top) * (height - 30));
      return `<rect x="${index * 40 + 6}" y="${height - 18 - tall}" width="${bar}" height="${tall}"></rect><text x="${index * 40 + 6}" y="${height - 4}">${keys[index]?.slice(5) ?? ''}</text>`;
    })
    .join('');
  const total = tokens.reduce((sum, value) => sum + value, 0);
  const title = `Tokens per day over the last ${CHART_DAYS} days: ${total} in all, at most ${Math.max(0, ...tokens)} in a day`;
  const chart = `<svg class="chart" viewBox="0 0 ${width} ${height}" role="img" aria-labelledby="usage-title"><title id="usage-title">${title}</title>${bars}</svg>`;
  const rows = keys.map((day, index) => [day, String(byDay.get(day)?.turns ?? 0), String(tokens[index] ?? 0)]);
  return `<section><h2>Usage</h2>${chart}<details><summary>The numbers</summary>${table('Per UTC day', ['Day', 'Turns', 'Tokens'], rows)}</details></section>`;
}
