import type { LoadFigures, Percentiles } from './load_figures.js';

const ms = (value: number | undefined): string => (value === undefined ? '–' : value.toFixed(0));
const pair = (p: Percentiles): string => `${ms(p.p50)} / ${ms(p.p99)}`;
const mib = (bytes: number | undefined): string => (bytes === undefined ? '–' : (bytes / 1024 / 1024).toFixed(0));
const span = (bytes: readonly [number, number] | undefined): string => (bytes === undefined ? '–' : `${mib(bytes[0])} → ${mib(bytes[1])}`);
const fixed = (value: number | undefined, digits: number): string => (value === undefined ? '–' : value.toFixed(digits));

/** A Markdown table: a header row, a separator, and the rows, each column as wide as its widest cell. */
export function table(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => (row[column] ?? '').length)));
  const line = (cells: readonly string[]): string => `| ${cells.map((cell, column) => cell.padEnd(widths[column] ?? 0)).join(' | ')} |`;
  return [line(header), line(widths.map((width) => '-'.repeat(width))), ...rows.map(line)].join('\n');
}

/** The main table: one row per scenario, the two counts that must be zero last. */
export function mainTable(rows: readonly LoadFigures[]): string {
  return table(
    [
      'scenario',
      'channels',
      'turns/s',
      'first text ms p50 / p99',
      'final reply ms p50 / p99',
      'event loop p99 ms',
      'RSS MiB start → end',
      'commits/s',
      'commits/turn',
      'Discord req/s',
      'turns lost',
      'tools run twice',
    ],
    rows.map((f) => [
      f.scenario,
      String(f.channels),
      fixed(f.turnsPerSecond, 1),
      pair(f.firstTextOverhead),
      pair(f.finalOverhead),
      fixed(f.eventLoopP99MaxMs, 1),
      `${mib(f.rssStartBytes)} → ${mib(f.rssEndBytes)}`,
      fixed(f.commitsPerSecond, 0),
      fixed(f.commitsPerTurn, 1),
      fixed(f.discordRequestsPerSecond, 1),
      String(f.outcomes.lost.length),
      String(f.outcomes.executedTwice.length),
    ]),
  );
}

/** The second table: what members saw (the model's time included), how every message ended, and the soak's memory. */
export function detailTable(rows: readonly LoadFigures[]): string {
  return table(
    [
      'scenario',
      'window s',
      'bot CPU %',
      'first text raw ms p50 / p99',
      'final raw ms p50 / p99',
      'samples',
      'sent',
      'replied',
      'resumed',
      'told only',
      'RSS after warm-up MiB',
      'RSS growth %',
      'heap floor MiB first → last minute',
      'JS heap MiB window start → end',
      'external MiB window start → end',
      'RSS / JS heap MiB at rest',
    ],
    rows.map((f) => [
      f.scenario,
      fixed(f.windowSeconds, 0),
      fixed(f.botCpuPercent, 0),
      pair(f.firstTextRaw),
      pair(f.finalRaw),
      String(f.finalRaw.n),
      String(f.outcomes.sent),
      String(f.outcomes.replied),
      String(f.outcomes.resumed),
      String(f.outcomes.toldOnly),
      mib(f.rssAfterWarmupBytes),
      fixed(f.rssGrowthPercent, 1),
      span(f.heapFloorBytes),
      span(f.memoryAtWindow?.heap),
      span(f.memoryAtWindow?.external),
      f.atRest === undefined ? '–' : `${mib(f.atRest.rssBytes)} / ${mib(f.atRest.heapTotalBytes)}`,
    ]),
  );
}

/** The lost turns and double executions by token, when there are any: where to look in the log. */
export function problems(rows: readonly LoadFigures[]): string[] {
  return rows.flatMap((f) => [
    ...(f.outcomes.lost.length > 0 ? [`${f.scenario}: lost ${f.outcomes.lost.slice(0, 20).join(', ')}${f.outcomes.lost.length > 20 ? ' …' : ''}`] : []),
    ...(f.outcomes.executedTwice.length > 0 ? [`${f.scenario}: written twice ${f.outcomes.executedTwice.slice(0, 20).join(', ')}`] : []),
  ]);
}
