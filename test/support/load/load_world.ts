import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { FakeDiscord } from '../fake_discord/server.js';
import { FakeLLMServer, type RecordedRequest } from '../fake_llm/server.js';
import { ToolConversation, type ToolConversationOptions } from '../fake_llm/tool_conversation.js';
import { SeededRandom } from '../seeded_random.js';
import { ToolTarget } from '../tool_target.js';
import { loadConfigYaml, type LoadRecovery, type LoadStore } from './load_config.js';
import { LoadMembers } from './load_members.js';
import { loadOutcomes, type LoadOutcomes } from './load_outcomes.js';
import { startLoadProgram, type LoadProgram } from './load_program.js';
import { TurnRecords } from './turn_records.js';

/** What a load runs on and how its parts behave. */
export interface LoadWorldOptions {
  /** A directory of its own: the config, the log and the SQLite store go there. */
  readonly dir: string;
  readonly channels: number;
  readonly model: Omit<ToolConversationOptions, 'overloaded'>;
  /** How the members think between an answer and their next message. */
  readonly thinkMinMs: number;
  readonly thinkMaxMs: number;
  readonly seed: number;
  /** The store; a SQLite file in `dir` unless told. */
  readonly store?: LoadStore;
  readonly autoResume: boolean;
  readonly recovery: LoadRecovery;
  /** Discord's global request limit for the bot (default 50, Discord's own). */
  readonly discordRequestsPerSecond?: number;
  /** How long the bot may take to start. */
  readonly startDeadlineMs: number;
}

/**
 * One stretch of an overload: `share` of the model's requests in it are answered "overloaded".
 * It lasts a number of requests, or a time counted from the first request it sees.
 */
export type StormPhase = { readonly share: number } & ({ readonly ms: number } | { readonly requests: number });

/** Overloads the model's requests in phases, one after the other. */
export interface Storm {
  /** Starts the first phase with the model's next request. */
  begin(phases: readonly StormPhase[]): void;
  /** Resolves at the first request after the last phase: the storm is over and the model was asked again. */
  readonly over: Promise<void>;
}

/** Whether a phase still covers a request, given the request and how many the phase has seen before it. */
function covering(phase: StormPhase): (request: RecordedRequest) => boolean {
  if ('requests' in phase) {
    let seen = 0;
    return () => (seen += 1) <= phase.requests;
  }
  let to: number | undefined;
  return (request) => {
    to ??= request.arrivedAt + phase.ms;
    return request.arrivedAt < to;
  };
}

function storm(random: SeededRandom): Storm & { readonly decide: (request: RecordedRequest) => boolean } {
  let phases: { readonly share: number; readonly covers: (request: RecordedRequest) => boolean }[] = [];
  let started = false;
  let ended = (): void => undefined;
  const over = new Promise<void>((resolve) => {
    ended = resolve;
  });
  return {
    begin(next) {
      phases = next.map((phase) => ({ share: phase.share, covers: covering(phase) }));
      started = true;
    },
    over,
    decide: (request) => {
      while (phases.length > 0) {
        const [phase] = phases;
        if (phase !== undefined && phase.covers(request)) return random.next() < phase.share;
        phases.shift();
      }
      if (started) ended();
      return false;
    },
  };
}

/**
 * The local Discord with one channel and one member per conversation, the self-answering model,
 * the tool target, and the built program as a bot on them, its log in `dir/holdfast.log`.
 */
export class LoadWorld {
  private constructor(
    readonly discord: FakeDiscord,
    readonly llm: FakeLLMServer,
    readonly model: ToolConversation,
    readonly target: ToolTarget,
    readonly storm: Storm,
    readonly records: TurnRecords,
    readonly members: LoadMembers,
    readonly program: LoadProgram,
  ) {}

  /** Starts every part and the bot; resolves once the bot is connected and serves metrics. */
  static async start(options: LoadWorldOptions): Promise<LoadWorld> {
    const discord = await FakeDiscord.start({ channels: options.channels });
    const llm = await FakeLLMServer.start();
    const target = await ToolTarget.start();
    const overload = storm(new SeededRandom(options.seed + 1));
    const model = new ToolConversation({ ...options.model, overloaded: overload.decide });
    llm.respondWith(model.respond);
    const configPath = join(options.dir, 'config.yml');
    const yaml = loadConfigYaml({
      discordRestUrl: discord.restUrl,
      discordToken: FakeDiscord.TOKEN,
      llmBaseUrl: llm.baseUrl,
      toolTargetUrl: target.url,
      store: options.store ?? { backend: 'sqlite', dbPath: join(options.dir, 'turns.sqlite3') },
      autoResume: options.autoResume,
      recovery: options.recovery,
      discordRequestsPerSecond: options.discordRequestsPerSecond ?? 50,
    });
    writeFileSync(configPath, yaml);
    try {
      const program = await startLoadProgram(configPath, options.dir, join(options.dir, 'holdfast.log'), options.startDeadlineMs);
      const records = new TurnRecords(discord);
      const members = new LoadMembers(discord, records, { thinkMinMs: options.thinkMinMs, thinkMaxMs: options.thinkMaxMs, random: new SeededRandom(options.seed) });
      return new LoadWorld(discord, llm, model, target, overload, records, members, program);
    } catch (error) {
      await Promise.all([discord.close(), llm.close(), target.close()]);
      throw error;
    }
  }

  /** How every message sent so far ended, and the two counts that must be zero. */
  outcomes(): LoadOutcomes {
    return loadOutcomes(this.records.turns, this.target.requests);
  }

  /** Stops the bot (SIGTERM, then SIGKILL after `graceMs`) and closes every part. */
  async close(graceMs: number): Promise<void> {
    await this.program.stop(graceMs);
    await this.discord.close();
    await this.llm.close();
    await this.target.close();
  }
}
