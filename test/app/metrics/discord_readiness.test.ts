import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { discordConfigYaml, runDiscordBot, type InProcessBot } from '../../support/discord_bot.js';
import { FakeDiscord } from '../../support/fake_discord/server.js';
import { FakeLLMServer } from '../../support/fake_llm/server.js';
import { metricsUrlIn } from '../../support/prometheus_text.js';
import { useTempDir } from '../../support/temp_dir.js';

/** Where the program said its metrics server listens, once it said so. */
async function metricsUrl(bot: InProcessBot): Promise<string> {
  // The end of the line: once it is logged, the whole line is.
  await bot.logged('health at /healthz and /readyz"}');
  const url = metricsUrlIn(bot.stderr());
  if (url === undefined) throw new Error(`no metrics url in the log:\n${bot.stderr()}`);
  return url;
}

async function readyz(url: string): Promise<{ status: number; body: unknown }> {
  const response = await fetch(`${url}/readyz`);
  return { status: response.status, body: await response.json() };
}

describe('readiness on Discord', { timeout: 60_000 }, () => {
  const temp = useTempDir();
  let discord: FakeDiscord;
  let fake: FakeLLMServer;

  beforeEach(async () => {
    discord = await FakeDiscord.start();
    fake = await FakeLLMServer.start();
  });
  afterEach(async () => {
    await fake.close();
    await discord.close();
  });

  it('answers /readyz 200 once the gateway is ready, and 503 naming the transport while the gateway connection is lost', async () => {
    temp.write('config.yml', discordConfigYaml(discord, fake.baseUrl, 'metrics:\n  listen: 127.0.0.1:0\n'));
    const bot = runDiscordBot(temp.path());
    const url = await metricsUrl(bot);
    await bot.logged('connected to Discord');
    expect(await readyz(url)).toEqual({ status: 200, body: { ready: true } });

    // Discord drops the connection; the client comes back and asks to resume, which this gateway never grants.
    discord.dropGateway(4000);
    await discord.whenGatewayConnections(2);
    expect(await readyz(url)).toEqual({ status: 503, body: { ready: false, not_ready: ['transport'] } });

    bot.stop();
    expect(await bot.done).toBe(0);
  });
});
