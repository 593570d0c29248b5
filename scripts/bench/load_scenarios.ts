import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { LoadRecovery, LoadStore } from '../../test/support/load/load_config.js';
import { LoadWorld } from '../../test/support/load/load_world.js';
import { loadFigures, type LoadFigures } from './load_figures.js';
import { MetricsScraper, type Scrape } from './load_metrics.js';

/** The knobs of every scenario, from the command line. */
export interface LoadSettings {
  /** The PostgreSQL server to put each scenario's store on (a fresh schema each), or SQLite when undefined. */
  readonly postgresUrl: string | undefined;
  readonly ttftMs: number;
  readonly tokensPerSecond: number;
  readonly replyTokens: number;
  readonly thinkMinMs: number;
  readonly thinkMaxMs: number;
  readonly seed: number;
  /** Discord's global request limit given to the bot. */
  readonly discordRequestsPerSecond: number;
}

/** One scenario: how many conversations, for how long, and whether the model is overloaded part of the time. */
export interface ScenarioPlan {
  readonly name: string;
  readonly channels: number;
  /** Load before the measured window: connections warm, histories begin. */
  readonly warmupMs: number;
  /** The measured window. */
  readonly windowMs: number;
  /** Half of the model's requests are overloaded for this long from the window's start. */
  readonly overloadMs?: number;
  /** After the window, no new messages; the members wait this long at most for their last answers. */
  readonly drainMs: number;
  /** Whether the RSS growth over the window is reported. */
  readonly rssGrowth: boolean;
  /** After the last answers the bot is left idle this long, then its memory is read once more: what it gives back at rest. */
  readonly restMs: number;
}

/** Short enough that a 60 s storm suspends turns and resumes them within the run. */
export const BENCH_RECOVERY: LoadRecovery = { deadlineSeconds: 25, backoffBaseSeconds: 2, backoffCapSeconds: 10, cooldownBaseSeconds: 5, cooldownCapSeconds: 20 };

const SCRAPE_INTERVAL_MS = 2_000;
const START_DEADLINE_MS = 60_000;
const STOP_GRACE_MS = 15_000;

function storeFor(settings: LoadSettings, dir: string, name: string): LoadStore {
  return settings.postgresUrl === undefined
    ? { backend: 'sqlite', dbPath: join(dir, 'turns.sqlite3') }
    : { backend: 'postgres', url: settings.postgresUrl, schema: `load_${name.replace(/\W/g, '_')}_${randomBytes(3).toString('hex')}` };
}

/**
 * Runs one scenario on a fresh bot, store and local Discord: members talk from the start, the
 * window is measured after the warm-up (the storm, if any, begins with it), then the members
 * stop and wait for their last answers. The scenario's directory (config, log, store) is removed
 * unless a turn was lost or a write ran twice; then its path is printed.
 */
export async function runScenario(plan: ScenarioPlan, settings: LoadSettings): Promise<LoadFigures> {
  const dir = mkdtempSync(join(tmpdir(), `holdfast-load-${plan.name}-`));
  const world = await LoadWorld.start({
    dir,
    channels: plan.channels,
    model: { ttftMs: settings.ttftMs, tokensPerSecond: settings.tokensPerSecond, replyTokens: settings.replyTokens },
    thinkMinMs: settings.thinkMinMs,
    thinkMaxMs: settings.thinkMaxMs,
    seed: settings.seed,
    store: storeFor(settings, dir, plan.name),
    autoResume: true,
    recovery: BENCH_RECOVERY,
    discordRequestsPerSecond: settings.discordRequestsPerSecond,
    startDeadlineMs: START_DEADLINE_MS,
  });
  const scraper = new MetricsScraper(world.program.metricsUrl, SCRAPE_INTERVAL_MS);
  let figures: LoadFigures;
  try {
    await scraper.scrape();
    scraper.start();
    world.members.start(plan.channels);
    await sleep(plan.warmupMs);
    await scraper.scrape();
    const from = performance.now();
    if (plan.overloadMs !== undefined) world.storm.begin([{ ms: plan.overloadMs, share: 0.5 }]);
    await sleep(plan.windowMs);
    await scraper.scrape();
    const to = performance.now();
    await world.members.drain(plan.drainMs);
    scraper.stop();
    const ended = await scraper.scrape();
    let atRest: Scrape | undefined;
    if (plan.restMs > 0) {
      await sleep(plan.restMs);
      atRest = await scraper.scrape();
    }
    figures = loadFigures({
      scenario: plan.name,
      channels: plan.channels,
      from,
      to,
      turns: world.records.turns,
      modelCalls: world.model.calls,
      discordRequests: world.discord.requests,
      scraper,
      outcomes: world.outcomes(),
      rssGrowth: plan.rssGrowth,
      ended,
      atRest,
    });
  } finally {
    scraper.stop();
    await world.close(STOP_GRACE_MS);
  }
  if (figures.outcomes.lost.length > 0 || figures.outcomes.executedTwice.length > 0) console.log(`${plan.name}: the bot's config, log and store are kept in ${dir}`);
  else rmSync(dir, { recursive: true, force: true });
  return figures;
}
