import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { discordConfigYaml, heldAnswer, isPost, isPostOrEdit, posts, replyTo, say, shown, userMessagesOf, type BotMessageBody } from '../support/discord_bot.js';
import { chatText } from '../support/fake_llm/openai_chat.js';
import { FakeLLMServer } from '../support/fake_llm/server.js';
import { FakeDiscord } from '../support/fake_discord/server.js';
import { deferred } from '../support/deferred.js';
import { PROGRAM } from '../support/program.js';
import { useTempDir } from '../support/temp_dir.js';

interface Running {
  readonly child: ChildProcess;
  readonly stderrHas: (text: string) => Promise<void>;
  readonly exited: Promise<number | null>;
  readonly stderr: () => string;
}

/** Starts the real program in Discord mode and lets a test wait for what it logs. */
function startBot(configPath: string, cwd: string, env: Readonly<Record<string, string>> = {}): Running {
  const child = spawn(process.execPath, [PROGRAM, '--config', configPath], { cwd, env: { PATH: process.env['PATH'], ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  const waiters: { text: string; resolve: () => void }[] = [];
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
    for (const waiter of waiters.filter((w) => stderr.includes(w.text))) {
      waiters.splice(waiters.indexOf(waiter), 1);
      waiter.resolve();
    }
  });
  const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
  return {
    child,
    exited,
    stderr: () => stderr,
    stderrHas: (text) => (stderr.includes(text) ? Promise.resolve() : new Promise((resolve) => waiters.push({ text, resolve }))),
  };
}

describe('the bot on Discord, against a local Discord and the real discord.js client', { timeout: 60_000 }, () => {
  const temp = useTempDir();
  let discord: FakeDiscord;
  let fake: FakeLLMServer;
  let bot: Running | undefined;

  beforeEach(async () => {
    discord = await FakeDiscord.start();
    fake = await FakeLLMServer.start();
  });
  afterEach(async () => {
    bot?.child.kill('SIGKILL');
    await bot?.exited;
    bot = undefined;
    await fake.close();
    await discord.close();
  });

  const config = (token = FakeDiscord.TOKEN, extra = ''): string => temp.write('config.yml', discordConfigYaml(discord, fake.baseUrl, extra, token));

  async function connected(extra = '', env: Readonly<Record<string, string>> = {}): Promise<Running> {
    bot = startBot(config(FakeDiscord.TOKEN, extra), temp.path(), env);
    await bot.stderrHas('connected to Discord');
    return bot;
  }

  it('answers a mention with a reply to it, reading the text without the mention, and pinging nobody from the text', async () => {
    fake.enqueue(chatText('Milk is a drink. @everyone <@&123>'));
    await connected();
    const asked = await discord.dispatchMessage({ channelId: discord.world.channelId, authorId: discord.world.user.id, content: `<@${discord.world.bot.id}> what is milk?`, mentionsBot: true });
    const posted = await discord.whenRequest((r) => r.method === 'POST' && r.path === `/channels/${discord.world.channelId}/messages`);
    expect(posted.body).toMatchObject({ content: 'Milk is a drink. @everyone <@&123>', message_reference: { message_id: asked }, allowed_mentions: { parse: [] } });
    const sent = (fake.requests[0]?.body as { messages: { role: string; content: unknown }[] }).messages.filter((m) => m.role === 'user');
    expect(sent).toEqual([{ role: 'user', content: '[alice]: what is milk?' }]);
    await discord.whenRequest((r) => r.method === 'POST' && r.path === `/channels/${discord.world.channelId}/typing`);
  });

  it('ignores messages that do not address it', async () => {
    fake.enqueue(chatText('Answered.'));
    await connected();
    await discord.dispatchMessage({ channelId: discord.world.channelId, authorId: discord.world.user.id, content: 'just chatting' });
    await discord.dispatchMessage({ channelId: discord.world.channelId, authorId: discord.world.user.id, content: `<@${discord.world.bot.id}> now you`, mentionsBot: true });
    await discord.whenRequest((r) => r.method === 'POST' && r.path === `/channels/${discord.world.channelId}/messages`);
    expect(fake.requests).toHaveLength(1);
  });

  it('splits a reply longer than a Discord message into follow-ups', async () => {
    const long = Array.from({ length: 60 }, (_, i) => `Line ${i}: ${'milk '.repeat(10)}`).join('\n');
    fake.enqueue(chatText(long));
    await connected();
    await discord.dispatchMessage({ channelId: discord.world.channelId, authorId: discord.world.user.id, content: `<@${discord.world.bot.id}> tell me a lot`, mentionsBot: true });
    await discord.whenRequest((r) => r.method === 'POST' && r.path === `/channels/${discord.world.channelId}/messages` && !('message_reference' in (r.body as object)));
    const posts = discord.requests.filter((r) => r.method === 'POST' && r.path === `/channels/${discord.world.channelId}/messages`).map((r) => (r.body as { content: string }).content);
    expect(posts.length).toBeGreaterThan(1);
    for (const post of posts) expect(post.length).toBeLessThanOrEqual(2000);
    expect(posts.join('\n')).toBe(long);
  });

  it('pings nobody from model text in any post or edit: the streamed draft, its final edit and the follow-ups', async () => {
    const { user, roleId } = discord.world;
    const pings = `@everyone <@&${roleId}> <@${user.id}>`;
    const rest = Array.from({ length: 50 }, (_, i) => `${pings} ${'milk '.repeat(5)}(line ${i})`).join('\n');
    const drafted = deferred();
    fake.enqueue(heldAnswer(`Milk is a drink. ${pings}\n`, drafted.promise, rest));
    await connected();
    await say(discord, 'what is milk?');
    await discord.whenRequest(isPost(discord));
    drafted.resolve();
    await discord.whenRequest((r) => isPostOrEdit(discord)(r) && (r.body as BotMessageBody).content.endsWith('(line 49)'));
    const writes = discord.requests.filter(isPostOrEdit(discord)).map((r) => ({ method: r.method, body: r.body as BotMessageBody }));
    expect(new Set(writes.map((w) => w.method))).toEqual(new Set(['POST', 'PATCH']));
    expect(writes.filter((w) => w.method === 'POST').length).toBeGreaterThan(1);
    for (const { body } of writes) {
      expect(body.content).toContain(pings);
      expect(body.allowed_mentions?.parse).toEqual([]);
      expect(body.allowed_mentions?.users ?? []).toEqual([]);
      expect(body.allowed_mentions?.roles ?? []).toEqual([]);
    }
  });

  it('after a kill mid-answer, a new process continues the request by itself, telling the channel once in reply to the question', async () => {
    const db = `turn_state:\n  db_path: ${join(temp.path(), 'turns.sqlite3')}\n`;
    fake.enqueue({ kind: 'no_response' });
    const first = await connected(db);
    const asked = await say(discord, 'what is milk?');
    await fake.whenRequests(1);
    first.child.kill('SIGKILL');
    expect(await first.exited).toBeNull();
    fake.enqueue(chatText('Milk is a drink.'));
    await connected(db);
    expect((await replyTo(discord, asked)).content).toBe('ℹ️ Continuing your request after a restart.');
    await shown(discord, 'Milk is a drink.');
    expect(posts(discord).filter((m) => m.content.startsWith('ℹ️ The bot restarted'))).toEqual([]);
    expect(fake.requests).toHaveLength(2);
    expect(userMessagesOf(fake.requests[1]?.body)).toEqual([{ role: 'user', content: '[alice]: what is milk?' }]);
  });

  it('after a kill mid-answer with continue_after_restart: false, a new process tells the channel once, and resumes it for its author', async () => {
    const db = `turn_state:\n  db_path: ${join(temp.path(), 'turns.sqlite3')}\n  continue_after_restart: false\n`;
    fake.enqueue({ kind: 'no_response' });
    const first = await connected(db);
    const asked = await say(discord, 'what is milk?');
    await fake.whenRequests(1);
    first.child.kill('SIGKILL');
    expect(await first.exited).toBeNull();
    await connected(db);
    const notice = await replyTo(discord, asked);
    expect(notice.content).toBe('ℹ️ The bot restarted while working on a request; its work is saved. Type `resume` to continue it.');
    fake.enqueue(chatText('Milk is a drink.'));
    const resumed = await say(discord, 'resume');
    expect((await replyTo(discord, resumed)).content).toBe('ℹ️ Continuing your saved request.');
    await shown(discord, 'Milk is a drink.');
    expect(posts(discord).filter((m) => m.content.startsWith('ℹ️ The bot restarted'))).toHaveLength(1);
    expect(fake.requests).toHaveLength(2);
  });

  it('after a kill between storing a reply and posting it, a new process posts it once, into the draft', async () => {
    const db = `turn_state:\n  db_path: ${join(temp.path(), 'turns.sqlite3')}\n`;
    const drafted = deferred();
    fake.enqueue(heldAnswer('Milk ', drafted.promise, 'is a drink.'));
    const first = await connected(db, { HOLDFAST_FAULT: 'after_completion' });
    const asked = await say(discord, 'what is milk?');
    expect((await replyTo(discord, asked)).content).toBe('Milk ');
    drafted.resolve();
    expect(await first.exited).toBeNull();
    expect(
      discord
        .messagesIn(discord.world.channelId)
        .filter((m) => m.author.id === discord.bot.id)
        .map((m) => m.content),
    ).toEqual(['Milk ']);

    await connected(db);
    await shown(discord, 'Milk is a drink.');
    const mine = discord.messagesIn(discord.world.channelId).filter((m) => m.author.id === discord.bot.id);
    expect(mine.map((m) => [m.content, m.message_reference?.message_id])).toEqual([['Milk is a drink.', asked]]);
    expect(discord.requests.filter(isPost(discord))).toHaveLength(1);
    expect(fake.requests).toHaveLength(1);
  });

  it('logs at start the URL that adds the bot to a server, with the scopes and permissions it needs', async () => {
    const running = await connected();
    await running.stderrHas('to add the bot to a server');
    const line = running
      .stderr()
      .split('\n')
      .find((text) => text.includes('"invite"'));
    const invite = new URL((JSON.parse(line ?? '{}') as { invite?: string }).invite ?? '');
    // Discord's own at https://discord.com/api/oauth2/authorize; here the local Discord's.
    expect(invite.pathname).toBe('/api/oauth2/authorize');
    expect(Object.fromEntries(invite.searchParams)).toEqual({
      client_id: discord.world.applicationId,
      scope: 'bot applications.commands',
      // View Channel, Send Messages, Read Message History, Send Messages in Threads
      permissions: String(1024 + 2048 + 65536 + 274877906944),
    });
  });

  it('exits 2 with a clear message when Discord refuses the token', async () => {
    bot = startBot(config('wrong-token'), temp.path());
    expect(await bot.exited).toBe(2);
    expect(bot.stderr()).toMatch(/holdfast: could not log in to Discord with discord\.token at /);
  });

  it('stops on SIGTERM and exits 0', async () => {
    const running = await connected();
    running.child.kill('SIGTERM');
    expect(await running.exited).toBe(0);
  });
});
