import type { RecordedRequest } from '../../test/support/fake_discord/server.js';
import type { ModelCall } from '../../test/support/fake_llm/tool_conversation.js';
import type { LoadOutcomes } from '../../test/support/load/load_outcomes.js';
import { modelTimes } from '../../test/support/load/model_time.js';
import type { TurnRecord } from '../../test/support/load/turn_records.js';
import type { MetricsScraper, Scrape } from './load_metrics.js';

/** A p50 and a p99, in ms; `undefined` without samples. */
export interface Percentiles {
  readonly p50: number | undefined;
  readonly p99: number | undefined;
  readonly n: number;
}

/** One scenario's row: everything measured over its window, and the outcomes of its whole run. */
export interface LoadFigures {
  readonly scenario: string;
  readonly channels: number;
  readonly windowSeconds: number;
  readonly turnsPerSecond: number;
  /** Time to first visible text and to the whole reply, minus the model's own time for the turn. */
  readonly firstTextOverhead: Percentiles;
  readonly finalOverhead: Percentiles;
  /** The same, as the member saw them (the model's time included). */
  readonly firstTextRaw: Percentiles;
  readonly finalRaw: Percentiles;
  /** The highest `nodejs_eventloop_lag_p99_seconds` of the scrapes in the window, in ms. */
  readonly eventLoopP99MaxMs: number | undefined;
  readonly rssStartBytes: number | undefined;
  readonly rssEndBytes: number | undefined;
  /** For the soak: the RSS when the window began (after warm-up), and the growth from there to the window's end. */
  readonly rssAfterWarmupBytes: number | undefined;
  readonly rssGrowthPercent: number | undefined;
  /**
   * For the soak: the least JS heap in use during the window's first minute and during its last,
   * each after some collection, so what stays alive rather than garbage not yet collected.
   */
  readonly heapFloorBytes: readonly [number, number] | undefined;
  /**
   * For the soak: where the RSS is, when the window began and when it ended: the JS heap V8
   * holds (`heap`) and the memory JS objects keep outside it (`external`); the rest of the RSS
   * is code, stacks, and what native code (SQLite, the allocator) holds.
   */
  readonly memoryAtWindow: { readonly heap: readonly [number, number]; readonly external: readonly [number, number] } | undefined;
  /** For the soak: the RSS and the JS heap V8 holds once the bot had been idle a while after its last answer. */
  readonly atRest: { readonly rssBytes: number; readonly heapTotalBytes: number } | undefined;
  readonly commitsPerSecond: number | undefined;
  readonly commitsPerTurn: number | undefined;
  readonly discordRequestsPerSecond: number;
  /** The bot's CPU time over the window, in % of one core. */
  readonly botCpuPercent: number | undefined;
  readonly outcomes: LoadOutcomes;
}

/** The `q` quantile (nearest rank) of `samples`. */
export function quantile(samples: readonly number[], q: number): number | undefined {
  if (samples.length === 0) return undefined;
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))];
}

function percentiles(samples: readonly number[]): Percentiles {
  return { p50: quantile(samples, 0.5), p99: quantile(samples, 0.99), n: samples.length };
}

/** What a scenario's run left to measure. */
export interface LoadRun {
  readonly scenario: string;
  readonly channels: number;
  /** The measured window (performance.now(), ms). */
  readonly from: number;
  readonly to: number;
  readonly turns: readonly TurnRecord[];
  readonly modelCalls: readonly ModelCall[];
  readonly discordRequests: readonly RecordedRequest[];
  readonly scraper: MetricsScraper;
  readonly outcomes: LoadOutcomes;
  /** Whether the growth of the RSS over the window is reported (the soak). */
  readonly rssGrowth: boolean;
  /** The scrape after the last answers, and the one after the bot was then left idle (the soak). */
  readonly ended: Scrape | undefined;
  readonly atRest: Scrape | undefined;
}

/** The figures of one run. */
export function loadFigures(run: LoadRun): LoadFigures {
  const { from, to, scraper } = run;
  const seconds = (to - from) / 1000;
  const inWindow = (at: number | undefined): boolean => at !== undefined && at >= from && at <= to;
  const completed = run.turns.filter((turn) => inWindow(turn.finalAt)).length;
  const times = modelTimes(run.modelCalls);
  const sentInWindow = run.turns.filter((turn) => inWindow(turn.sentAt));
  const since = (turn: TurnRecord, at: number | undefined): number[] => (at === undefined ? [] : [at - turn.sentAt]);
  const firstTextRaw = sentInWindow.flatMap((turn) => since(turn, turn.firstTextAt));
  const finalRaw = sentInWindow.flatMap((turn) => since(turn, turn.finalAt));
  const firstTextOverhead = sentInWindow.flatMap((turn) => since(turn, turn.firstTextAt).map((ms) => ms - (times.get(turn.token)?.toFirstText ?? 0)));
  const finalOverhead = sentInWindow.flatMap((turn) => since(turn, turn.finalAt).map((ms) => ms - (times.get(turn.token)?.toFinal ?? 0)));
  const window = scraper.within(from, to);
  const lags = window.flatMap((scrape) => (scrape.eventLoopP99Ms === undefined ? [] : [scrape.eventLoopP99Ms]));
  const first = scraper.at(from);
  const last = scraper.at(to);
  const commits = first?.storeWrites !== undefined && last?.storeWrites !== undefined && last.at > first.at ? last.storeWrites - first.storeWrites : undefined;
  const cpu = first?.cpuSeconds !== undefined && last?.cpuSeconds !== undefined && last.at > first.at ? last.cpuSeconds - first.cpuSeconds : undefined;
  const scrapedSeconds = first !== undefined && last !== undefined ? (last.at - first.at) / 1000 : 0;
  const rssAfterWarmup = run.rssGrowth ? first?.rssBytes : undefined;
  const rssWindowEnd = last?.rssBytes;
  const heapFloor = (scrapes: readonly Scrape[]): number | undefined => {
    const used = scrapes.flatMap((scrape) => (scrape.heapUsedBytes === undefined ? [] : [scrape.heapUsedBytes]));
    return used.length === 0 ? undefined : Math.min(...used);
  };
  const floors = run.rssGrowth ? [heapFloor(scraper.within(from, from + 60_000)), heapFloor(scraper.within(to - 60_000, to))] : [];
  const [floorFirst, floorLast] = floors;
  const pairOf = (start: number | undefined, end: number | undefined): readonly [number, number] | undefined => (start === undefined || end === undefined ? undefined : [start, end]);
  const heapAtWindow = pairOf(first?.heapTotalBytes, last?.heapTotalBytes);
  const externalAtWindow = pairOf(first?.externalBytes, last?.externalBytes);
  return {
    scenario: run.scenario,
    channels: run.channels,
    windowSeconds: seconds,
    turnsPerSecond: completed / seconds,
    firstTextOverhead: percentiles(firstTextOverhead),
    finalOverhead: percentiles(finalOverhead),
    firstTextRaw: percentiles(firstTextRaw),
    finalRaw: percentiles(finalRaw),
    eventLoopP99MaxMs: lags.length === 0 ? undefined : Math.max(...lags),
    rssStartBytes: scraper.scrapes[0]?.rssBytes,
    rssEndBytes: run.ended?.rssBytes,
    rssAfterWarmupBytes: rssAfterWarmup,
    rssGrowthPercent: rssAfterWarmup === undefined || rssWindowEnd === undefined ? undefined : ((rssWindowEnd - rssAfterWarmup) / rssAfterWarmup) * 100,
    heapFloorBytes: pairOf(floorFirst, floorLast),
    memoryAtWindow: run.rssGrowth && heapAtWindow !== undefined && externalAtWindow !== undefined ? { heap: heapAtWindow, external: externalAtWindow } : undefined,
    atRest: run.atRest?.rssBytes === undefined || run.atRest.heapTotalBytes === undefined ? undefined : { rssBytes: run.atRest.rssBytes, heapTotalBytes: run.atRest.heapTotalBytes },
    commitsPerSecond: commits === undefined || scrapedSeconds === 0 ? undefined : commits / scrapedSeconds,
    commitsPerTurn: commits === undefined || completed === 0 ? undefined : commits / completed,
    botCpuPercent: cpu === undefined || scrapedSeconds === 0 ? undefined : (cpu / scrapedSeconds) * 100,
    discordRequestsPerSecond: run.discordRequests.filter((request) => inWindow(request.at)).length / seconds,
    outcomes: run.outcomes,
  };
}
