import BetterSqlite3 from 'better-sqlite3';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { discordConfigYaml, userMessagesOf, type BotMessageBody, type InProcessBot } from '../support/discord_bot.js';
import { useDiscordWorld } from '../support/discord_world.js';
import { chatText, chatToolCalls } from '../support/fake_llm/openai_chat.js';

/** A member of the guild other than the world's user; they hold no role. */
const OTHER_MEMBER = '1100000000000000042';
const ACCESS_REFUSED = 'You are not allowed to use this bot here.';

describe('who may talk to the bot, and where (`access`), on the local Discord', { timeout: 60_000 }, () => {
  const world = useDiscordWorld();

  /** Starts the bot with `extra` configuration (and debug logs) and waits until it is connected. */
  async function start(extra: string): Promise<InProcessBot> {
    const bot = world.start(discordConfigYaml(world.discord, world.fake.baseUrl, extra).replace('level: info', 'level: debug'));
    await bot.logged('connected to Discord');
    return bot;
  }

  /** `authorId` says `text` to the bot in `channelId`, mentioning it; resolves with the message id. */
  function ask(channelId: string, text: string, authorId = world.discord.world.user.id): Promise<string> {
    return world.discord.dispatchMessage({ channelId, authorId, content: `<@${world.discord.world.bot.id}> ${text}`, mentionsBot: true });
  }

  /** Resolves once the bot posted `content` in `channelId`. */
  async function posted(channelId: string, content: string): Promise<void> {
    await world.discord.whenRequest((r) => r.method === 'POST' && r.path === `/channels/${channelId}/messages` && (r.body as BotMessageBody).content === content);
  }

  /** The bot's posts that reply to message `messageId`, in any channel. */
  function repliesTo(messageId: string): BotMessageBody[] {
    return world.discord.requests.filter((r) => r.method === 'POST' && (r.body as BotMessageBody | undefined)?.message_reference?.message_id === messageId).map((r) => r.body as BotMessageBody);
  }

  /** How many rows of the store mention message `messageId`: turns, inbox entries, history entries. */
  function storedRows(messageId: string): number {
    const db = new BetterSqlite3(join(world.temp.path(), 'data/turn_state/turns.sqlite3'), { readonly: true });
    try {
      const count = (table: string): number => (db.prepare(`SELECT COUNT(*) AS n FROM ${table} WHERE message_id = ?`).get(messageId) as { n: number }).n;
      return count('turns') + count('inbox') + count('history_entries');
    } finally {
      db.close();
    }
  }

  /**
   * The messages `ignored` got no reply, left nothing in the store and reached no model; the one
   * message answered after them (`answered`, sent last) was the model's only request. Messages are
   * taken in the order they arrive, so once the last one is answered the others were handled.
   */
  function onlyAnswered(answered: string, ignored: readonly string[]): void {
    expect(repliesTo(answered)).toHaveLength(1);
    for (const id of ignored) {
      expect(repliesTo(id)).toEqual([]);
      expect(storedRows(id)).toBe(0);
    }
    expect(world.fake.requests).toHaveLength(1);
    expect(userMessagesOf(world.fake.requests[0]?.body)).toEqual([{ role: 'user', content: '[alice]: let me in' }]);
  }

  it('answers an allowed user and ignores a denied one without a reply, a turn, a stored message or a model request, logging why at debug', async () => {
    const { channelId } = world.discord.world;
    world.fake.enqueue(chatText('Welcome.'));
    const bot = await start(`access:\n  users:\n    deny: ["${OTHER_MEMBER}"]\n`);
    const denied = await ask(channelId, 'keep me out', OTHER_MEMBER);
    const allowed = await ask(channelId, 'let me in');
    await posted(channelId, 'Welcome.');
    onlyAnswered(allowed, [denied]);
    const ignoredLine = bot
      .stderr()
      .split('\n')
      .find((line) => line.includes('ignored a message'));
    expect(JSON.parse(ignoredLine ?? '{}')).toMatchObject({ level: 20, user: OTHER_MEMBER, channel: channelId, reason: 'user_denied' });
  });

  it('with a role allow list answers only members who hold one of the roles', async () => {
    const { channelId, roleId } = world.discord.world;
    world.fake.enqueue(chatText('Welcome, helper.'));
    await start(`access:\n  roles:\n    allow: ["${roleId}"]\n`);
    const withoutRole = await ask(channelId, 'keep me out', OTHER_MEMBER);
    const helper = await ask(channelId, 'let me in');
    await posted(channelId, 'Welcome, helper.');
    onlyAnswered(helper, [withoutRole]);
  });

  it('treats a thread as its channel: a denied channel’s thread is ignored, an allowed channel’s thread answered, other channels ignored', async () => {
    const { channelId, threadId, supportChannelId } = world.discord.world;
    world.fake.enqueue(chatText('In the support channel.'));
    await start(`access:\n  channels:\n    deny: ["${channelId}"]\n`);
    const inThread = await ask(threadId, 'keep me out');
    const inSupport = await ask(supportChannelId, 'let me in');
    await posted(supportChannelId, 'In the support channel.');
    onlyAnswered(inSupport, [inThread]);

    await world.stop();
    world.fake.reset();
    world.fake.enqueue(chatText('In the thread.'));
    await start(`access:\n  channels:\n    allow: ["${channelId}"]\n`);
    const elsewhere = await ask(supportChannelId, 'keep me out');
    const allowedThread = await ask(threadId, 'let me in');
    await posted(threadId, 'In the thread.');
    onlyAnswered(allowedThread, [elsewhere]);
  });

  it('ignores direct messages with `allow_dms` off and still answers in the server', async () => {
    const { channelId, dmChannelId, user } = world.discord.world;
    world.fake.enqueue(chatText('Here, not in private.'));
    await start('access:\n  allow_dms: false\n');
    const direct = await world.discord.dispatchMessage({ channelId: dmChannelId, authorId: user.id, content: 'keep me out' });
    const inServer = await ask(channelId, 'let me in');
    await posted(channelId, 'Here, not in private.');
    onlyAnswered(inServer, [direct]);
  });

  it('always answers an admin, even one every list denies and in a direct message with `allow_dms` off', async () => {
    const { channelId, dmChannelId, roleId, user } = world.discord.world;
    world.fake.enqueue(chatText('Yes, boss.'), chatText('Privately, boss.'));
    await start(
      `permissions:\n  admins: ["${user.id}"]\naccess:\n  users:\n    deny: ["${user.id}"]\n  roles:\n    deny: ["${roleId}"]\n  channels:\n    deny: ["${channelId}"]\n  allow_dms: false\n`,
    );
    await ask(channelId, 'let me in');
    await posted(channelId, 'Yes, boss.');
    await world.discord.dispatchMessage({ channelId: dmChannelId, authorId: user.id, content: 'and here?' });
    await posted(dmChannelId, 'Privately, boss.');
    expect(world.fake.requests).toHaveLength(2);
  });

  it('refuses a denied user’s slash command to them alone, and runs an allowed user’s', async () => {
    await start(`access:\n  users:\n    deny: ["${OTHER_MEMBER}"]\n`);
    const refused = await world.discord.dispatchInteraction({ name: 'status', userId: OTHER_MEMBER });
    const callback = await world.discord.whenRequest((r) => r.method === 'POST' && r.path === `/interactions/${refused.id}/${refused.token}/callback`);
    expect(callback.body).toMatchObject({ type: 4, data: { content: ACCESS_REFUSED, flags: 64 } });

    const allowed = await world.discord.dispatchInteraction({ name: 'status' });
    await world.discord.whenRequest((r) => r.method === 'PATCH' && r.path === `/webhooks/${world.discord.bot.id}/${allowed.token}/messages/@original`);
    expect(world.discord.requests.filter((r) => r.path.includes(refused.token)).map((r) => r.method)).toEqual(['POST']);
  });

  it('logs a refusal Discord would not take, and still does not run the command', async () => {
    const bot = await start(`access:\n  users:\n    deny: ["${OTHER_MEMBER}"]\n`);
    world.discord.failNext((r) => r.method === 'POST' && r.path.startsWith('/interactions/'), { status: 400 });
    await world.discord.dispatchInteraction({ name: 'status', userId: OTHER_MEMBER });
    await bot.logged('could not refuse a slash command');
    const allowed = await world.discord.dispatchInteraction({ name: 'status' });
    await world.discord.whenRequest((r) => r.method === 'PATCH' && r.path === `/webhooks/${world.discord.bot.id}/${allowed.token}/messages/@original`);
    expect(world.discord.requests.filter((r) => r.method === 'POST' && r.path.startsWith('/channels/'))).toEqual([]);
  });

  it('refuses a denied user’s press on a request for approval to them alone, and the request still waits', async () => {
    const tools =
      'tools:\n  builtin: []\n  approval_defaults: { write: required }\n  http:\n' +
      '    - { name: save_note, description: Saves a note., method: POST, url: "http://127.0.0.1:9/notes", effect: write }\n';
    const bot = world.start(discordConfigYaml(world.discord, world.fake.baseUrl, `access:\n  users:\n    deny: ["${OTHER_MEMBER}"]\n${tools}`).replace('tools:\n  builtin: []\n', ''));
    await bot.logged('connected to Discord');
    world.fake.enqueue(chatToolCalls([{ id: 'w1', name: 'save_note', args: '{"text":"x"}' }]));
    await ask(world.discord.world.channelId, 'note x');
    const posted = await world.discord.whenRequest((r) => r.method === 'POST' && Array.isArray((r.body as { components?: unknown[] } | undefined)?.components));
    const request = world.discord.messagesIn(world.discord.world.channelId).find((m) => m.nonce === (posted.body as { nonce?: string }).nonce);
    const rows = (request?.components ?? []) as { components: { custom_id: string }[] }[];
    const approve = rows[0]?.components[0]?.custom_id ?? '';

    const refused = world.discord.pressButton({ messageId: request?.id ?? '', customId: approve, userId: OTHER_MEMBER });
    expect(await world.discord.whenInteractionAnswer(refused.id)).toMatchObject({ type: 'reply', ephemeral: true, content: ACCESS_REFUSED });
    expect(world.discord.message(request?.id ?? '')?.components).toHaveLength(1);
  });
});
