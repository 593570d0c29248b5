import { afterEach, beforeEach } from 'vitest';
import { runDiscordBot, type InProcessBot } from './discord_bot.js';
import { FakeDiscord, type FakeDiscordOptions } from './fake_discord/server.js';
import { FakeLLMServer } from './fake_llm/server.js';
import { useTempDir } from './temp_dir.js';

/** A test's local Discord, fake model and working directory, and the bot it runs on them. */
export interface DiscordWorld {
  readonly discord: FakeDiscord;
  readonly fake: FakeLLMServer;
  readonly temp: ReturnType<typeof useTempDir>;
  /** Writes `configYaml` as config.yml and starts the program's main function on it (not yet connected). */
  start(configYaml: string): InProcessBot;
  /** Sends the running bot SIGTERM and resolves with its exit status. */
  stop(): Promise<number | undefined>;
}

/**
 * For each test of the enclosing `describe`: a fresh local Discord (started with `options`) and
 * fake model, a temp directory, and a bot started with `start`; after the test the bot is stopped
 * and everything closed and removed.
 */
export function useDiscordWorld(options: FakeDiscordOptions = {}): DiscordWorld {
  const temp = useTempDir();
  let discord: FakeDiscord | undefined;
  let fake: FakeLLMServer | undefined;
  let bot: InProcessBot | undefined;
  const stop = async (): Promise<number | undefined> => {
    const running = bot;
    bot = undefined;
    running?.stop();
    return running?.done;
  };
  beforeEach(async () => {
    discord = await FakeDiscord.start(options);
    fake = await FakeLLMServer.start();
  });
  afterEach(async () => {
    await stop();
    await fake?.close();
    await discord?.close();
  });
  const present = <T>(value: T | undefined, what: string): T => {
    if (value === undefined) throw new Error(`the ${what} exists only inside a test`);
    return value;
  };
  return {
    get discord() {
      return present(discord, 'local Discord');
    },
    get fake() {
      return present(fake, 'fake model');
    },
    temp,
    start(configYaml) {
      temp.write('config.yml', configYaml);
      bot = runDiscordBot(temp.path());
      return bot;
    },
    stop,
  };
}
