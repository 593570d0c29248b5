import { cpus, loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { startEmbeddedPostgres, type StartedPostgres } from '../../test/support/embedded_postgres.js';
import type { LoadFigures } from './load_figures.js';
import { detailTable, mainTable, problems } from './load_report.js';
import { runScenario, type LoadSettings, type ScenarioPlan } from './load_scenarios.js';

/**
 * Holdfast under load: the built program on the local Discord with many channels, one member
 * each, against a model with a set latency that asks for a read and a write tool call every turn.
 * Scenarios: steady (50, 200 and 500 channels), storm (500 channels, half the model's requests
 * overloaded for 60 s, then recovery) and soak (200 channels for 10 minutes). Prints one row per
 * scenario; see BENCHMARKS.md for what each column means.
 */
const SCENARIOS = ['steady', 'storm', 'soak', 'all'] as const;
type Scenario = (typeof SCENARIOS)[number];
/** Several times the 8 s V8's memory reducer waits before it checks whether the program went idle. */
const SOAK_REST_MS = 30_000;

const { values } = parseArgs({
  options: {
    scenario: { type: 'string', default: 'all' },
    channels: { type: 'string' },
    backend: { type: 'string', default: 'sqlite' },
    'soak-minutes': { type: 'string', default: '10' },
    'ttft-ms': { type: 'string', default: '300' },
    'tokens-per-second': { type: 'string', default: '50' },
    'reply-tokens': { type: 'string', default: '40' },
    'think-max-ms': { type: 'string', default: '2000' },
    'window-seconds': { type: 'string', default: '50' },
    seed: { type: 'string', default: '1' },
    'discord-rps': { type: 'string', default: '50' },
  },
});

function numberOption(name: keyof typeof values): number {
  const value = Number(values[name]);
  if (!Number.isFinite(value) || value < 0) throw new Error(`--${name} is a number of at least 0, not "${String(values[name])}"`);
  return value;
}

const scenario = values.scenario as Scenario;
if (!SCENARIOS.includes(scenario)) throw new Error(`--scenario is one of ${SCENARIOS.join(', ')}, not "${values.scenario}"`);
if (values.backend !== 'sqlite' && values.backend !== 'postgres') throw new Error(`--backend is sqlite or postgres, not "${values.backend}"`);
const channels = values.channels === undefined ? undefined : numberOption('channels');
const windowMs = numberOption('window-seconds') * 1000;
const soakMs = numberOption('soak-minutes') * 60_000;

/** The scenarios asked for, `--channels` replacing each one's size. */
function plans(): ScenarioPlan[] {
  const steady = [50, 200, 500].map((size) => ({ name: `steady-${channels ?? size}`, channels: channels ?? size, warmupMs: 10_000, windowMs, drainMs: 60_000, rssGrowth: false, restMs: 0 }));
  const storm = { name: 'storm', channels: channels ?? 500, warmupMs: 10_000, windowMs: 80_000, overloadMs: 60_000, drainMs: 120_000, rssGrowth: false, restMs: 0 };
  const soakWarmupMs = Math.min(120_000, soakMs / 5);
  const soak = { name: 'soak', channels: channels ?? 200, warmupMs: soakWarmupMs, windowMs: soakMs - soakWarmupMs, drainMs: 60_000, rssGrowth: true, restMs: SOAK_REST_MS };
  const chosen: Record<Scenario, ScenarioPlan[]> = { steady: channels === undefined ? steady : [steady[0] as ScenarioPlan], storm: [storm], soak: [soak], all: [] };
  chosen.all = [...(channels === undefined ? steady : [steady[0] as ScenarioPlan]), storm, soak];
  return chosen[scenario];
}

async function main(): Promise<void> {
  const started = performance.now();
  let postgres: StartedPostgres | undefined;
  const externalUrl = process.env['HOLDFAST_BENCH_POSTGRES_URL'];
  if (values.backend === 'postgres' && externalUrl === undefined) postgres = await startEmbeddedPostgres({ durable: true });
  const settings: LoadSettings = {
    postgresUrl: values.backend === 'postgres' ? (externalUrl ?? postgres?.url) : undefined,
    ttftMs: numberOption('ttft-ms'),
    tokensPerSecond: numberOption('tokens-per-second'),
    replyTokens: numberOption('reply-tokens'),
    thinkMinMs: 0,
    thinkMaxMs: numberOption('think-max-ms'),
    seed: numberOption('seed'),
    discordRequestsPerSecond: numberOption('discord-rps'),
  };
  console.log(
    `load on ${cpus().length} cores, node ${process.version}, store ${values.backend}; model: ${settings.ttftMs} ` +
      `ms to first token, ${settings.tokensPerSecond} tokens/s, ${settings.replyTokens} reply tokens; think time ` +
      `0–${settings.thinkMaxMs} ms; Discord ${settings.discordRequestsPerSecond} requests/s`,
  );
  const rows: LoadFigures[] = [];
  try {
    for (const plan of plans()) {
      const began = performance.now();
      const cpu = process.cpuUsage();
      rows.push(await runScenario(plan, settings));
      const seconds = (performance.now() - began) / 1000;
      const { user, system } = process.cpuUsage(cpu);
      // The local Discord, the model and the members share the machine with the bot: their CPU and the machine's load say how much.
      console.log(`${plan.name} done in ${seconds.toFixed(0)} s; the load's own CPU ${(((user + system) / 1e6 / seconds) * 100).toFixed(0)} % of a core; load average ${loadavg()[0]?.toFixed(1)}`);
    }
  } finally {
    await postgres?.stop();
  }
  console.log(`\n${mainTable(rows)}\n\n${detailTable(rows)}\n`);
  for (const line of problems(rows)) console.log(line);
  console.log(`elapsed ${((performance.now() - started) / 60_000).toFixed(1)} min`);
}

await main();
