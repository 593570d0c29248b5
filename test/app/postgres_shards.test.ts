import { useDiscordServers, type DiscordServers } from '../support/program_servers.js';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { answersTo, answerTo as answerIn, approvalButton, approvalRequest, approvedBy, isApprovalRequest, isEditOf } from '../support/approval_requests.js';
import { startProgram, type BackgroundProgram } from '../support/background_program.js';
import { discordConfigYaml, type BotMessageBody } from '../support/discord_bot.js';
import type { FakeDiscord, RecordedRequest } from '../support/fake_discord/server.js';
import { chatText, chatToolCalls } from '../support/fake_llm/openai_chat.js';
import type { FakeLLMServer } from '../support/fake_llm/server.js';
import { freshPgConnection, onSchema } from '../support/postgres_schema.js';
import { useTempDir } from '../support/temp_dir.js';
import type { ToolTarget } from '../support/tool_target.js';

// Real processes, real leases: generous limits that only catch hangs.
describe('two bot processes, shard 0 and shard 1 of 2, on one PostgreSQL store', { timeout: 120_000 }, () => {
  const temp = useTempDir();
  const servers = useDiscordServers({ guilds: 2 });
  let discord: FakeDiscord;
  let fake: FakeLLMServer;
  let target: ToolTarget;
  let track: DiscordServers['track'];
  beforeEach(() => {
    ({ discord, fake, target, track } = servers.current);
  });

  /** Starts the bot running shard `id` of 2 in a working directory of its own; with `approvals`, its writes wait for approval. */
  async function shard(id: number, url: string, schema: string, approvals = false): Promise<BackgroundProgram> {
    const cwd = join(temp.path(), `shard-${id}`);
    mkdirSync(cwd, { recursive: true });
    const extra = `turn_state:
  backend: postgres
  auto_resume: false
  continue_after_restart: false
  lease_ttl_seconds: 1.5
  housekeeping_interval_seconds: 0.25
  postgres: { url: "${url}", schema: ${schema} }
tools:
  builtin: []${approvals ? '\n  approval_defaults: { write: required }' : ''}
  http:
    - name: save_note
      description: Saves a note.
      method: POST
      url: ${target.url}/notes
      effect: write
      parameters: { type: object, properties: { text: { type: string } }, required: [text] }
`;
    const yaml = discordConfigYaml(discord, fake.baseUrl).replace('tools:\n  builtin: []\n', '').replace('discord:\n', `discord:\n  shards: { ids: [${id}], count: 2 }\n`) + extra;
    writeFileSync(join(cwd, 'config.yml'), yaml);
    const program = track(startProgram(['--config', join(cwd, 'config.yml')], { cwd, env: { PATH: process.env['PATH'] } }));
    await program.logged('connected to Discord');
    return program;
  }

  const say = (channelId: string, text: string): Promise<string> =>
    discord.dispatchMessage({ channelId, authorId: discord.world.user.id, content: `<@${discord.world.bot.id}> ${text}`, mentionsBot: true });
  const postsIn =
    (channelId: string): ((r: RecordedRequest) => boolean) =>
    (r) =>
      r.method === 'POST' && r.path === `/channels/${channelId}/messages` && r.status === 200;
  const answerTo = async (channelId: string, messageId: string): Promise<string> =>
    ((await discord.whenRequest((r) => postsIn(channelId)(r) && (r.body as BotMessageBody).message_reference?.message_id === messageId)).body as BotMessageBody).content;

  it('answer only their own servers; a killed one’s write is told once by the other and never re-sent after its restart', async () => {
    const { url, schema } = freshPgConnection();
    const first = discord.channelOnShard(0, 2);
    const second = discord.channelOnShard(1, 2);
    const zero = await shard(0, url, schema);
    const one = await shard(1, url, schema);

    fake.enqueue(chatText('Milk is a drink.'));
    expect(await answerTo(first, await say(first, 'what is milk?'))).toBe('Milk is a drink.');
    fake.enqueue(chatText('Bread is baked.'));
    expect(await answerTo(second, await say(second, 'what is bread?'))).toBe('Bread is baked.');
    await zero.logged(`"channel":"${first}"`);
    await one.logged(`"channel":"${second}"`);
    expect([zero.stderr().includes(second), one.stderr().includes(first)]).toEqual([false, false]);

    let release = (): void => undefined;
    target.reply({ hold: new Promise<void>((resolve) => (release = resolve)) });
    const arrived = new Promise<void>((resolve) => (target.onRequest = () => resolve()));
    fake.enqueue(chatToolCalls([{ id: 'call_note', name: 'save_note', args: '{"text":"buy milk"}' }]));
    const request = await say(second, 'note: buy milk');
    await arrived;
    one.kill('SIGKILL');
    await one.exited;
    release();

    const told = await answerTo(second, request);
    expect(told).toContain('stopped answering');
    const ops = await onSchema<{ tool_call_id: string; state: string }>({ url, schema, poolSize: 1 }, 'SELECT tool_call_id, state FROM ops');
    expect(ops).toEqual([{ tool_call_id: 'call_note', state: 'OUTCOME_UNKNOWN' }]);

    await shard(1, url, schema);
    const resume = await say(second, 'resume');
    expect(await answerTo(second, resume)).toContain('An operator has to check');
    expect(target.requests).toHaveLength(1);
    expect(fake.requests).toHaveLength(3);
    const notices = discord.requests.filter((r) => postsIn(second)(r) && (r.body as BotMessageBody).content.includes('stopped answering'));
    expect(notices).toHaveLength(1);
  });

  it('a request asked on shard 1 and approved after its restart runs the write once, on shard 1, and its reply is posted once', async () => {
    const { url, schema } = freshPgConnection();
    const first = discord.channelOnShard(0, 2);
    const second = discord.channelOnShard(1, 2);
    const zero = await shard(0, url, schema, true);
    const one = await shard(1, url, schema, true);

    fake.enqueue(chatToolCalls([{ id: 'call_note', name: 'save_note', args: '{"text":"buy milk"}' }]));
    const asked = await say(second, 'note: buy milk');
    const request = (await approvalRequest(discord, second)).id;
    // Once the channel's next message is answered and its turn finished, the asking is over (the request is stored with its call) and nothing else runs.
    fake.enqueue(chatText('Bread is baked.'));
    expect(await answerIn(discord, second, await say(second, 'what is bread?'))).toBe('Bread is baked.');
    await one.logged('"status":"TERMINAL_COMPLETED"');
    one.kill('SIGKILL');
    await one.exited;

    await shard(1, url, schema, true);
    fake.enqueue(chatText('Noted: buy milk.'));
    const press = discord.pressButton({ messageId: request, customId: approvalButton(discord, request, 'Approve') });
    expect(await discord.whenInteractionAnswer(press.id, (a) => a.type === 'edit_original')).toMatchObject({ ephemeral: true, content: 'ℹ️ Approved: `save_note` runs now.' });
    expect(await answerIn(discord, second, asked)).toBe('Noted: buy milk.');
    await discord.whenRequest(isEditOf(second, request));

    expect(target.requests.map((r) => r.body)).toEqual(['{"text":"buy milk"}']);
    const ops = await onSchema<{ tool_call_id: string; state: string }>({ url, schema, poolSize: 1 }, 'SELECT tool_call_id, state FROM ops');
    expect(ops).toEqual([{ tool_call_id: 'call_note', state: 'APPLIED' }]);
    expect(answersTo(discord, second, asked)).toEqual(['Noted: buy milk.']);
    expect(discord.requests.filter(isApprovalRequest(second))).toHaveLength(1);
    expect(discord.message(request)?.components).toEqual([]);
    expect(discord.message(request)?.content).toMatch(approvedBy(discord.world.user.id));
    expect(discord.requests.filter(isApprovalRequest(first))).toEqual([]);
    expect(zero.stderr()).not.toContain(second);
    expect(fake.requests).toHaveLength(3);
  });
});
