import { spawn, type ChildProcess } from 'node:child_process';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { chatText } from '../support/fake_llm/openai_chat.js';
import { FakeLLMServer } from '../support/fake_llm/server.js';
import { FakeDiscord } from '../support/fake_discord/server.js';
import { PROGRAM } from '../support/program.js';
import { useTempDir } from '../support/temp_dir.js';

interface Running {
  readonly child: ChildProcess;
  readonly stderrHas: (text: string) => Promise<void>;
  readonly exited: Promise<number | null>;
  readonly stderr: () => string;
}

/** Starts the real program in Discord mode and lets a test wait for what it logs. */
function startBot(configPath: string, cwd: string): Running {
  const child = spawn(process.execPath, [PROGRAM, '--config', configPath], { cwd, env: { PATH: process.env['PATH'] }, stdio: ['ignore', 'pipe', 'pipe'] });
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

  const config = (token = FakeDiscord.TOKEN): string =>
    temp.write(
      'config.yml',
      `discord:\n  token: ${token}\n  api_url: ${discord.restUrl}\nllm:\n  base_url: ${fake.baseUrl}\n  model: test-model\nlogging:\n  level: info\n  format: json\ntools:\n  builtin: []\n`,
    );

  async function connected(): Promise<Running> {
    bot = startBot(config(), temp.path());
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
    expect(sent).toEqual([{ role: 'user', content: 'what is milk?' }]);
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
