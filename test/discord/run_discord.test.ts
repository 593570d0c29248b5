import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { discordConfigYaml, posts as postsIn, runDiscordBot, say, type BotMessageBody, type InProcessBot } from '../support/discord_bot.js';
import { deferred } from '../support/deferred.js';
import { chatText, chatToolCalls } from '../support/fake_llm/openai_chat.js';
import { FakeLLMServer, type FakeStep } from '../support/fake_llm/server.js';
import { FakeDiscord } from '../support/fake_discord/server.js';
import { useTempDir } from '../support/temp_dir.js';
import { openTestStore, startingWith } from '../support/turn_store.js';
import { ToolTarget } from '../support/tool_target.js';

const overloaded: FakeStep = { kind: 'reply', status: 529, body: { error: { type: 'overloaded_error' } } };

describe('the Discord adapter in-process', { timeout: 60_000 }, () => {
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

  /** Runs the program's main function on Discord; `stop()` sends it SIGTERM. */
  function run(extra = ''): InProcessBot {
    const recovery =
      'llm_recovery:\n  generation_deadline_seconds: 0.2\n  backoff_base_seconds: 0.01\n  backoff_cap_seconds: 0.02\nturn_state:\n  auto_resume: false\n  continue_after_restart: false\n';
    temp.write('config.yml', discordConfigYaml(discord, fake.baseUrl, `${recovery}${extra}`));
    return runDiscordBot(temp.path());
  }

  const posts = (): BotMessageBody[] => postsIn(discord);
  const ask = (content: string): Promise<string> => say(discord, content);
  const nthPost = (n: number) => discord.whenRequest(() => posts().length >= n);

  it('answers a mention, and stops on SIGTERM with status 0', async () => {
    fake.enqueue(chatText('Hello from the bot.'));
    const bot = run();
    await bot.logged('connected to Discord');
    await ask('hello');
    await nthPost(1);
    expect(posts()[0]?.content).toBe('Hello from the bot.');
    bot.stop();
    expect(await bot.done).toBe(0);
  });

  it('marks notices, and refuses to resume a request whose message was deleted', async () => {
    fake.enqueue(...Array.from({ length: 40 }, () => overloaded));
    const bot = run();
    await bot.logged('connected to Discord');
    const original = await ask('look something up');
    // The reply's draft shows the wait for the model, then becomes the notice.
    await discord.whenRequest((r) => r.method === 'PATCH' && /^ℹ️ The model provider is overloaded/.test((r.body as BotMessageBody).content));
    expect(posts()[0]?.content).toBe('ℹ️ waiting for the model (attempt 2, 0 s)…');
    expect(
      discord
        .messagesIn(discord.world.channelId)
        .filter((m) => m.author.id === discord.world.bot.id)
        .map((m) => m.content),
    ).toEqual([expect.stringMatching(/^ℹ️ The model provider is overloaded/)]);
    discord.deleteUserMessage(original);
    await ask('resume');
    await nthPost(2);
    expect(posts()[1]?.content).toMatch(/^ℹ️ Your original message was edited or deleted/);
    bot.stop();
    expect(await bot.done).toBe(0);
  });

  it('streams a reply into one message and edits it to the final text, at most once per edit interval', async () => {
    fake.enqueue(chatText(['Milk ', 'is ', 'a ', 'drink.']));
    const bot = run();
    await bot.logged('connected to Discord');
    await ask('what is milk?');
    const edited = await discord.whenRequest((r) => r.method === 'PATCH' && r.path.startsWith(`/channels/${discord.world.channelId}/messages/`));
    expect(posts()).toEqual([expect.objectContaining({ content: 'Milk ' })]);
    expect(edited.body).toMatchObject({ content: 'Milk is a drink.', allowed_mentions: { parse: [] } });
    expect(discord.requests.filter((r) => r.method === 'PATCH')).toHaveLength(1);
    bot.stop();
    expect(await bot.done).toBe(0);
  });

  it('registers /help, /stop, /resume and /status, and answers them to their user alone', async () => {
    const bot = run('');
    await bot.logged('connected to Discord');
    const registered = discord.requests.find((r) => r.method === 'PUT' && r.path.includes('/commands'));
    expect((registered?.body as { name: string }[]).map((c) => c.name)).toEqual(['help', 'stop', 'resume', 'status', 'usage', 'model', 'turns', 'approve', 'deny', 'resolve']);
    const help = await discord.dispatchInteraction({ name: 'help' });
    const listed = await discord.whenRequest((r) => r.method === 'PATCH' && r.path.endsWith(`/${help.token}/messages/@original`));
    expect(listed.body).toMatchObject({ content: expect.stringMatching(/^ℹ️ Commands:\n• `\/help`: this list\n/) as unknown });
    const status = await discord.dispatchInteraction({ name: 'status' });
    const ack = await discord.whenRequest((r) => r.method === 'POST' && r.path.startsWith(`/interactions/${status.id}/`));
    expect(ack.body).toEqual({ type: 5, data: { flags: 64 } });
    const answer = await discord.whenRequest((r) => r.method === 'PATCH' && r.path.endsWith(`/${status.token}/messages/@original`));
    expect(answer.body).toMatchObject({ content: 'ℹ️ Nothing is running in this channel.\nNo saved requests are waiting.' });

    const resume = await discord.dispatchInteraction({ name: 'resume' });
    const refusal = await discord.whenRequest((r) => r.method === 'PATCH' && r.path.endsWith(`/${resume.token}/messages/@original`));
    expect(refusal.body).toMatchObject({ content: 'ℹ️ You have no saved request in this channel to resume.' });
    expect(posts()).toEqual([]);
    expect(fake.requests).toEqual([]);
    bot.stop();
    expect(await bot.done).toBe(0);
  });

  it('leaves a slash command that is not its own (one an older version registered) unanswered, and runs nothing for it', async () => {
    const bot = run('');
    await bot.logged('connected to Discord');
    const stale = await discord.dispatchInteraction({ name: 'ask' });
    const status = await discord.dispatchInteraction({ name: 'status' });
    await discord.whenRequest((r) => r.method === 'PATCH' && r.path.endsWith(`/${status.token}/messages/@original`));
    expect(discord.requests.filter((r) => r.path.includes(stale.token) || r.path.startsWith(`/interactions/${stale.id}/`))).toEqual([]);
    expect(posts()).toEqual([]);
    expect(fake.requests).toEqual([]);
    bot.stop();
    expect(await bot.done).toBe(0);
  });

  it('registers the commands in the servers listed in discord.guild_ids, where they work at once', async () => {
    temp.write('config.yml', discordConfigYaml(discord, fake.baseUrl).replace('discord:\n', `discord:\n  guild_ids: ['${discord.world.guildId}']\n`));
    const bot = runDiscordBot(temp.path());
    await bot.logged('connected to Discord');
    const registered = discord.requests.filter((r) => r.method === 'PUT' && r.path.endsWith('/commands'));
    expect(registered.map((r) => r.path)).toEqual([`/applications/${discord.world.applicationId}/guilds/${discord.world.guildId}/commands`]);
    bot.stop();
    expect(await bot.done).toBe(0);
  });

  it('answers /resume to its user alone: tried at once, a request the model still refuses is said to be saved again', async () => {
    fake.enqueue(...Array.from({ length: 80 }, () => overloaded));
    const bot = run();
    await bot.logged('connected to Discord');
    await ask('look something up');
    await nthPost(1);
    const asked = fake.requests.length;
    const resume = await discord.dispatchInteraction({ name: 'resume' });
    const answered = await discord.whenRequest((r) => r.method === 'PATCH' && r.path.endsWith(`/${resume.token}/messages/@original`));
    expect(answered.body).toMatchObject({ content: expect.stringMatching(/^ℹ️ The model provider is overloaded/) as unknown });
    expect(fake.requests.length).toBeGreaterThan(asked);
    expect(posts()).toHaveLength(1);
    bot.stop();
    expect(await bot.done).toBe(0);
  });

  it('still runs a slash command whose acknowledgement Discord refused, and logs the refusal', async () => {
    const bot = run();
    await bot.logged('connected to Discord');
    discord.failNext((r) => r.method === 'POST' && r.path.startsWith('/interactions/'), { status: 400 });
    await discord.dispatchInteraction({ name: 'status' });
    await bot.logged('could not acknowledge a slash command');
    await nthPost(1);
    expect(posts()[0]?.content).toBe('ℹ️ Nothing is running in this channel.\nNo saved requests are waiting.');
    bot.stop();
    expect(await bot.done).toBe(0);
  });

  it('stops a running request with /stop', async () => {
    fake.enqueue({ kind: 'stream', chunks: ['data: {"choices":[{"index":0,"delta":{"content":"Thinking"}}]}\n\n'], then: 'stall' });
    const bot = run();
    await bot.logged('connected to Discord');
    await ask('a long question');
    await fake.whenRequests(1);
    await discord.dispatchInteraction({ name: 'stop' });
    await fake.whenClientClosed();
    await discord.whenRequest(() => discord.requests.some((r) => r.method === 'PATCH' && (r.body as { content?: string }).content === 'ℹ️ Stopped.'));
    bot.stop();
    expect(await bot.done).toBe(0);
  });

  it('acknowledges /stop at once, to its user alone, naming the running write it lets finish before the request stops', async () => {
    const target = await ToolTarget.start();
    const released = deferred();
    const reached = deferred();
    target.reply({ hold: released.promise });
    target.onRequest = () => reached.resolve();
    try {
      fake.enqueue(chatToolCalls([{ id: 'w1', name: 'save_note', args: '{"text":"buy milk"}' }]), chatText('Saved.'));
      const saveNote =
        `tools:\n  builtin: []\n  http:\n    - name: save_note\n      description: Saves a note.\n      method: POST\n ` +
        `     url: ${target.url}/notes\n      effect: write\n      parameters: { type: object, properties: { text: { ` +
        `type: string } }, required: [text] }\n`;
      temp.write('config.yml', discordConfigYaml(discord, fake.baseUrl).replace('tools:\n  builtin: []\n', saveNote));
      const bot = runDiscordBot(temp.path());
      await bot.logged('connected to Discord');
      await ask('note: buy milk');
      await reached.promise;
      const stop = await discord.dispatchInteraction({ name: 'stop' });
      const ack = await discord.whenRequest((r) => r.method === 'PATCH' && r.path.endsWith(`/${stop.token}/messages/@original`));
      expect(ack.body).toMatchObject({ content: 'ℹ️ Stopping… `save_note` is already running and will finish first.' });
      expect(posts().some((post) => post.content.startsWith('ℹ️ Stopped.'))).toBe(false);
      released.resolve();
      await discord.whenRequest(() => posts().some((post) => post.content === 'ℹ️ Stopped.\n`save_note` finished before stopping: released'));
      expect(target.requests).toHaveLength(1);
      expect(fake.requests).toHaveLength(1);
      bot.stop();
      expect(await bot.done).toBe(0);
    } finally {
      released.resolve();
      await target.close();
    }
  });

  it('answers after a restart, as a reply to it, a message that waited in the queue when the bot stopped', async () => {
    fake.enqueue({ kind: 'stream', chunks: ['data: {"choices":[{"index":0,"delta":{"content":"Thinking"}}]}\n\n'], then: 'stall' });
    const first = run('chat:\n  max_queued_per_channel: 1\n');
    await first.logged('connected to Discord');
    await ask('a long question');
    await fake.whenRequests(1);
    const waiting = await ask('a second question');
    await ask('a third question');
    await discord.whenRequest(() => posts().some((post) => /^ℹ️ I am still working on earlier messages/.test(post.content)));
    first.stop();
    expect(await first.done).toBe(0);
    expect(fake.requests).toHaveLength(1);

    fake.enqueue(chatText('Answer to the second question.'));
    const again = run('chat:\n  max_queued_per_channel: 1\n');
    await again.logged('connected to Discord');
    await discord.whenRequest(() => posts().some((post) => post.content === 'Answer to the second question.'));
    expect(posts().find((post) => post.content === 'Answer to the second question.')).toMatchObject({ message_reference: { message_id: waiting } });
    again.stop();
    expect(await again.done).toBe(0);
    expect(fake.requests).toHaveLength(2);
  });

  it('tells the channel once after a restart that a request was interrupted, answering that request', async () => {
    const { store } = openTestStore(join(temp.path(), 'data'));
    await store.admit({
      identity: { source: 'discord', channelId: discord.world.channelId, messageId: '1100000000000000800' },
      requesterId: discord.world.user.id,
      messageDigest: 'd',
      start: startingWith(),
    });
    await store.close();
    const bot = run();
    await bot.logged('connected to Discord');
    await nthPost(1);
    expect(discord.requests.find((r) => r.method === 'POST' && r.path === `/channels/${discord.world.channelId}/messages`)?.body).toMatchObject({
      content: expect.stringMatching(/^ℹ️ The bot restarted while working on a request/) as unknown,
      message_reference: { message_id: '1100000000000000800' },
    });
    bot.stop();
    expect(await bot.done).toBe(0);
  });
});
