import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startProgram, type BackgroundProgram } from '../../support/background_program.js';
import { discordConfigYaml, type BotMessageBody } from '../../support/discord_bot.js';
import { FakeDiscord } from '../../support/fake_discord/server.js';
import { chatText } from '../../support/fake_llm/openai_chat.js';
import { FakeLLMServer } from '../../support/fake_llm/server.js';
import { freshPgConnection } from '../../support/postgres_schema.js';
import { useProgramsKilledAfterEach } from '../../support/program.js';
import { useTempDir } from '../../support/temp_dir.js';

const TOKEN = 'a-console-token-0123456789';

// Real processes, real leases: generous limits that only catch hangs.
describe('holdfast web beside two bot processes, shard 0 and shard 1 of 2, on one PostgreSQL store', { timeout: 120_000 }, () => {
  const temp = useTempDir();
  let discord: FakeDiscord;
  let fake: FakeLLMServer;
  beforeEach(async () => {
    discord = await FakeDiscord.start({ guilds: 2 });
    fake = await FakeLLMServer.start();
  });
  afterEach(async () => {
    await fake.close();
    await discord.close();
  });
  const track = useProgramsKilledAfterEach<BackgroundProgram>();

  /** Starts the bot running shard `id` of 2 in a working directory of its own, its configuration in config.yml there. */
  async function shard(id: number, url: string, schema: string): Promise<BackgroundProgram> {
    const cwd = join(temp.path(), `shard-${id}`);
    mkdirSync(cwd, { recursive: true });
    const yaml =
      discordConfigYaml(discord, fake.baseUrl).replace('discord:\n', `discord:\n  shards: { ids: [${id}], count: 2 }\n`) +
      `turn_state:\n  backend: postgres\n  auto_resume: false\n  continue_after_restart: false\n  postgres: { url: "${url}", schema: ${schema} }\n`;
    writeFileSync(join(cwd, 'config.yml'), yaml);
    const program = track(startProgram(['--config', join(cwd, 'config.yml')], { cwd, env: { PATH: process.env['PATH'] } }));
    await program.logged('connected to Discord');
    return program;
  }

  const say = (channelId: string, text: string): Promise<string> =>
    discord.dispatchMessage({ channelId, authorId: discord.world.user.id, content: `<@${discord.world.bot.id}> ${text}`, mentionsBot: true });
  const answerTo = async (channelId: string, messageId: string): Promise<string> =>
    (
      (
        await discord.whenRequest(
          (r) => r.method === 'POST' && r.path === `/channels/${channelId}/messages` && r.status === 200 && (r.body as BotMessageBody).message_reference?.message_id === messageId,
        )
      ).body as BotMessageBody
    ).content;

  it('lists the turns both shards answered, each in its own server, after a login', async () => {
    const { url, schema } = freshPgConnection();
    const first = discord.channelOnShard(0, 2);
    const second = discord.channelOnShard(1, 2);
    const zero = await shard(0, url, schema);
    const one = await shard(1, url, schema);
    fake.enqueue(chatText('Milk is a drink.'));
    expect(await answerTo(first, await say(first, 'what is milk?'))).toBe('Milk is a drink.');
    fake.enqueue(chatText('Bread is baked.'));
    expect(await answerTo(second, await say(second, 'what is bread?'))).toBe('Bread is baked.');
    await zero.logged('"status":"TERMINAL_COMPLETED"');
    await one.logged('"status":"TERMINAL_COMPLETED"');

    const config = join(temp.path(), 'web.yml');
    writeFileSync(config, `${readFileSync(join(temp.path(), 'shard-0', 'config.yml'), 'utf8')}web:\n  listen: 127.0.0.1:0\n  token: \${HOLDFAST_WEB_TOKEN}\n`);
    const web = track(startProgram(['web', '--config', config], { cwd: temp.path(), env: { PATH: process.env['PATH'], HOLDFAST_WEB_TOKEN: TOKEN } }));
    await web.logged('"msg":"web console at http://127.0.0.1:');
    const consoleUrl = /web console at (http:\/\/127\.0\.0\.1:\d+)/.exec(web.stderr())?.[1] ?? '';
    const login = await fetch(`${consoleUrl}/login`, { method: 'POST', redirect: 'manual', body: new URLSearchParams({ name: 'ana', token: TOKEN }) });
    const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
    const page = await (await fetch(`${consoleUrl}/`, { headers: { cookie } })).text();
    expect(page).toContain(`discord:${first}`);
    expect(page).toContain(`discord:${second}`);
    expect(page.match(/>completed</g)).toHaveLength(2);

    web.kill('SIGTERM');
    expect(await web.exited).toBe(0);
  });
});
