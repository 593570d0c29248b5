import { noteToolSection, useDiscordServers, type DiscordServers } from '../../support/program_servers.js';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { startProgram, type BackgroundProgram } from '../../support/background_program.js';
import { discordConfigYaml, type BotMessageBody } from '../../support/discord_bot.js';
import type { FakeDiscord } from '../../support/fake_discord/server.js';
import { approvalRequest } from '../../support/approval_requests.js';
import { chatText, chatToolCalls } from '../../support/fake_llm/openai_chat.js';
import type { FakeLLMServer } from '../../support/fake_llm/server.js';
import { freshPgConnection } from '../../support/postgres_schema.js';
import { useTempDir } from '../../support/temp_dir.js';
import type { ToolTarget } from '../../support/tool_target.js';

const TOKEN = 'a-console-token-0123456789';

// Real processes, real leases: generous limits that only catch hangs.
describe('holdfast web beside two bot processes, shard 0 and shard 1 of 2, on one PostgreSQL store', { timeout: 120_000 }, () => {
  const temp = useTempDir();
  const servers = useDiscordServers({ guilds: 2 });
  let discord: FakeDiscord;
  let fake: FakeLLMServer;
  let target: ToolTarget;
  let track: DiscordServers['track'];
  beforeEach(() => {
    ({ discord, fake, target, track } = servers.current);
  });

  /** Starts the bot running shard `id` of 2 in a working directory of its own, its configuration in config.yml there; its `save_note` writes wait for approval. */
  async function shard(id: number, url: string, schema: string): Promise<BackgroundProgram> {
    const cwd = join(temp.path(), `shard-${id}`);
    mkdirSync(cwd, { recursive: true });
    const tools = noteToolSection(target.url).replace('  builtin: []\n', '  builtin: []\n  approval_defaults: { write: required }\n');
    const yaml =
      discordConfigYaml(discord, fake.baseUrl).replace('tools:\n  builtin: []\n', '').replace('discord:\n', `discord:\n  shards: { ids: [${id}], count: 2 }\n`) +
      `turn_state:\n  backend: postgres\n  auto_resume: false\n  continue_after_restart: false\n  postgres: { url: "${url}", schema: ${schema} }\n` +
      tools;
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

    const { consoleUrl, cookie, web } = await consoleOn(join(temp.path(), 'shard-0', 'config.yml'));
    const page = await (await fetch(`${consoleUrl}/`, { headers: { cookie } })).text();
    expect(page).toContain(`discord:${first}`);
    expect(page).toContain(`discord:${second}`);
    expect(page.match(/<tr data-status="TERMINAL_COMPLETED">/g)).toHaveLength(2);
    const health = await (await fetch(`${consoleUrl}/health`, { headers: { cookie } })).text();
    const shardsSeen = [...health.matchAll(/<tr><td>[^<]+<\/td><td>[^<]+, pid \d+<\/td><td>([^<]+)<\/td><td>[^<]+ UTC<\/td><td>\d+[smh] ago<\/td><\/tr>/g)].map((row) => row[1]);
    expect(shardsSeen.sort()).toEqual(['0 of 2', '1 of 2']);

    web.kill('SIGTERM');
    expect(await web.exited).toBe(0);
  });

  it('approves from the console serving alone a write that shard 1 asked about: shard 1 runs it once and replies', async () => {
    const { url, schema } = freshPgConnection();
    const second = discord.channelOnShard(1, 2);
    await shard(0, url, schema);
    await shard(1, url, schema);
    fake.enqueue(chatToolCalls([{ id: 'call_note', name: 'save_note', args: '{"text":"buy milk"}' }]), chatText('I saved the note.'));
    const asked = await say(second, 'note: buy milk');
    await approvalRequest(discord, second);
    expect(target.requests).toHaveLength(0);

    const { consoleUrl, cookie, web } = await consoleOn(join(temp.path(), 'shard-0', 'config.yml'));
    const attention = await (await fetch(`${consoleUrl}/attention`, { headers: { cookie } })).text();
    const csrf = /name="csrf" value="([^"]+)"/.exec(attention)?.[1] ?? '';
    const turn = /name="turn" value="([^"]+)"/.exec(attention)?.[1] ?? '';
    expect(attention).toContain(`discord:${second}`);
    const approved = await fetch(`${consoleUrl}/calls/approval`, {
      method: 'POST',
      redirect: 'manual',
      headers: { cookie },
      body: new URLSearchParams({ csrf, turn, call: '1:call_note', verdict: 'approved', note: 'fine', back: '/attention' }),
    });
    expect(approved.status).toBe(303);
    await discord.whenRequest(
      (r) =>
        r.method === 'POST' &&
        r.path === `/channels/${second}/messages` &&
        (r.body as BotMessageBody).message_reference?.message_id === asked &&
        (r.body as BotMessageBody).content === 'I saved the note.',
    );
    expect(target.requests.map((request) => request.body)).toEqual(['{"text":"buy milk"}']);
    expect(web.stderr()).toContain('"by":"web:ana"');

    web.kill('SIGTERM');
    expect(await web.exited).toBe(0);
  });

  /** `holdfast web` on `configPath` with a web section added, logged in as `ana`. */
  async function consoleOn(configPath: string): Promise<{ consoleUrl: string; cookie: string; web: BackgroundProgram }> {
    const config = join(temp.path(), 'web.yml');
    writeFileSync(config, `${readFileSync(configPath, 'utf8')}web:\n  listen: 127.0.0.1:0\n  token: \${HOLDFAST_WEB_TOKEN}\n`);
    const web = track(startProgram(['web', '--config', config], { cwd: temp.path(), env: { PATH: process.env['PATH'], HOLDFAST_WEB_TOKEN: TOKEN } }));
    await web.logged('"msg":"web console at http://127.0.0.1:');
    const consoleUrl = /web console at (http:\/\/127\.0\.0\.1:\d+)/.exec(web.stderr())?.[1] ?? '';
    const login = await fetch(`${consoleUrl}/login`, { method: 'POST', redirect: 'manual', body: new URLSearchParams({ name: 'ana', token: TOKEN }) });
    return { consoleUrl, cookie: (login.headers.get('set-cookie') ?? '').split(';')[0] ?? '', web };
  }
});
