import { describe, expect, it } from 'vitest';
import { discordConfigYaml, type BotMessageBody } from '../support/discord_bot.js';
import { useDiscordWorld } from '../support/discord_world.js';
import { chatText } from '../support/fake_llm/openai_chat.js';
import type { FakeStep } from '../support/fake_llm/server.js';

const overloaded: FakeStep = { kind: 'reply', status: 529, body: { error: { type: 'overloaded_error' } } };
/** A tiny recovery deadline, so an overload suspends at once, and a breaker that lets a probe through almost at once, so `resume` can reach the model. */
const RECOVERY =
  'llm_recovery:\n  generation_deadline_seconds: 0.2\n  backoff_base_seconds: 0.01\n  backoff_cap_seconds: ' +
  '0.02\n  breaker_cooldown_base_seconds: 0.001\n  breaker_cooldown_cap_seconds: 0.001\nturn_state:\n  ' +
  'auto_resume: false\n';
/** Two HTTP tools, continuing the `tools` section that discordConfigYaml opens (they are offered, never called). */
const HTTP_TOOLS = `  http:
    - { name: save_note, description: Saves a note., method: POST, url: "https://tools.example/notes", effect: write }
    - { name: lookup, description: Looks a word up., url: "https://tools.example/lookup", effect: read }
`;
const DEFAULT_PROMPT = 'You are Holdfast, a helpful assistant in a Discord server. Answer concisely. Use tools when they help, and say plainly when a tool failed.';
const SUPPORT_PROMPT = 'You answer questions about our product.';
const GENERAL_PROMPT = 'Keep it short.';
const SERVER_PROMPT = 'You serve the whole server.';

/** What the model was offered in one recorded request: the system prompt, the tools by name, and whether tools were barred. */
function offered(body: unknown): { system: unknown; tools: string[]; toolChoice: unknown } {
  const request = body as { messages: { role: string; content: unknown }[]; tools?: { function: { name: string } }[]; tool_choice?: unknown };
  return { system: request.messages.find((m) => m.role === 'system')?.content, tools: (request.tools ?? []).map((t) => t.function.name), toolChoice: request.tool_choice };
}

describe('settings for some channels (`overrides`), on the local Discord', { timeout: 60_000 }, () => {
  const world = useDiscordWorld({ channels: 2 });

  /** The configuration: entry #1 for the Support category, entry #2 for `general` (and so its thread) in the guild, entry #3 for the whole guild. */
  function overridesYaml(): string {
    const { categoryId, channelId, guildId } = world.discord.world;
    return `overrides:
  - name: support channels
    match: { category_ids: ["${categoryId}"] }
    system_prompt: ${SUPPORT_PROMPT}
    tools: [lookup]
    max_iterations: 1
  - name: general and its threads
    match: { guild_ids: ["${guildId}"], channel_ids: ["${channelId}"] }
    system_prompt: ${GENERAL_PROMPT}
    tools: []
  - match: { guild_ids: ["${guildId}"] }
    system_prompt: ${SERVER_PROMPT}
`;
  }

  async function start(): Promise<void> {
    await world.start(discordConfigYaml(world.discord, world.fake.baseUrl, `${HTTP_TOOLS}${RECOVERY}${overridesYaml()}`)).logged('connected to Discord');
  }

  /** The world's user says `text` to the bot in `channelId`, mentioning it; resolves with the message id. */
  function ask(channelId: string, text: string): Promise<string> {
    return world.discord.dispatchMessage({ channelId, authorId: world.discord.world.user.id, content: `<@${world.discord.world.bot.id}> ${text}`, mentionsBot: true });
  }

  /** Resolves once the bot posted or edited a message in `channelId` to read `content` (or match it). */
  async function shownIn(channelId: string, content: string | RegExp): Promise<void> {
    await world.discord.whenRequest((r) => {
      const text = (r.body as BotMessageBody | undefined)?.content ?? '';
      const inChannel = (r.method === 'POST' && r.path === `/channels/${channelId}/messages`) || (r.method === 'PATCH' && r.path.startsWith(`/channels/${channelId}/messages/`));
      return inChannel && (typeof content === 'string' ? text === content : content.test(text));
    });
  }

  it('gives a turn the prompt, tools and cap of the first entry that matches where it was asked: by category, by a thread’s channel, by server, and none in a direct message', async () => {
    const { supportChannelId, threadId, channelIds, dmChannelId, user } = world.discord.world;
    const elsewhere = channelIds[1] ?? '';
    world.fake.enqueue(chatText('Support here.'), chatText('Thread here.'), chatText('Elsewhere.'), chatText('In private.'));
    await start();
    await ask(supportChannelId, 'how do I reset it?');
    await shownIn(supportChannelId, 'Support here.');
    await ask(threadId, 'and here?');
    await shownIn(threadId, 'Thread here.');
    await ask(elsewhere, 'and there?');
    await shownIn(elsewhere, 'Elsewhere.');
    await world.discord.dispatchMessage({ channelId: dmChannelId, authorId: user.id, content: 'and in private?' });
    await shownIn(dmChannelId, 'In private.');

    expect(world.fake.requests.map((r) => offered(r.body))).toEqual([
      { system: SUPPORT_PROMPT, tools: ['lookup'], toolChoice: 'none' },
      { system: GENERAL_PROMPT, tools: [], toolChoice: undefined },
      { system: SERVER_PROMPT, tools: ['save_note', 'lookup'], toolChoice: undefined },
      { system: DEFAULT_PROMPT, tools: ['save_note', 'lookup'], toolChoice: undefined },
    ]);
  });

  it('offers a resumed turn the tools of its channel’s entry, with the prompt it started with', async () => {
    const { supportChannelId } = world.discord.world;
    await start();
    world.fake.enqueue(...Array.from({ length: 200 }, () => overloaded));
    await ask(supportChannelId, 'how do I reset it?');
    await shownIn(supportChannelId, /^ℹ️ The model provider is overloaded/);
    world.fake.reset();

    world.fake.enqueue(chatText('Hold the button.'));
    await ask(supportChannelId, 'resume');
    await shownIn(supportChannelId, 'Hold the button.');
    expect(world.fake.requests.map((r) => offered(r.body))).toEqual([{ system: SUPPORT_PROMPT, tools: ['lookup'], toolChoice: 'none' }]);
  });

  it('fills a prompt’s placeholders with the names Discord gives the server, the channel or thread and the requester, in an override’s prompt too', async () => {
    const { supportChannelId, threadId, channelId, categoryId, dmChannelId, user } = world.discord.world;
    const prompts = `chat:
  system_prompt: '{user} asks in {channel} on {server}, {date}.'
overrides:
  - match: { category_ids: ["${categoryId}"] }
    system_prompt: 'Support for {user} in {channel} of {server} at {time}.'
`;
    world.fake.enqueue(chatText('General.'), chatText('Thread.'), chatText('Support.'), chatText('Private.'));
    const started = new Date().toISOString().slice(0, 10);
    await world.start(discordConfigYaml(world.discord, world.fake.baseUrl, prompts)).logged('connected to Discord');
    await ask(channelId, 'hello');
    await shownIn(channelId, 'General.');
    await ask(threadId, 'and here?');
    await shownIn(threadId, 'Thread.');
    await ask(supportChannelId, 'how do I reset it?');
    await shownIn(supportChannelId, 'Support.');
    await world.discord.dispatchMessage({ channelId: dmChannelId, authorId: user.id, content: 'and in private?' });
    await shownIn(dmChannelId, 'Private.');

    // The bot's clock is the machine's: the date is today's in UTC, on either side of a midnight the test may have crossed.
    const day = `(${started}|${new Date().toISOString().slice(0, 10)})`;
    const systems = world.fake.requests.map((r) => String(offered(r.body).system));
    expect(systems).toEqual([
      expect.stringMatching(new RegExp(`^alice asks in general on Fake Guild, ${day}\\.$`)),
      expect.stringMatching(new RegExp(`^alice asks in general-thread on Fake Guild, ${day}\\.$`)),
      expect.stringMatching(new RegExp(`^Support for alice in support of Fake Guild at ${day}T\\d{2}:\\d{2}:\\d{2}Z\\.$`)),
      expect.stringMatching(new RegExp(`^alice asks in direct messages on direct messages, ${day}\\.$`)),
    ]);
  });

  it('names the entry that applies in /status, or says that none does', async () => {
    const { supportChannelId, threadId, channelIds, dmChannelId, user } = world.discord.world;
    await start();
    const statusIn = async (channelId: string): Promise<string> => {
      const { token } = await world.discord.dispatchInteraction({ name: 'status', channelId });
      const answer = await world.discord.whenRequest((r) => r.method === 'PATCH' && r.path === `/webhooks/${world.discord.bot.id}/${token}/messages/@original`);
      return (answer.body as BotMessageBody).content;
    };
    expect(await statusIn(supportChannelId)).toMatch(/\nSettings here: override #1 \(support channels\)\.$/);
    expect(await statusIn(threadId)).toMatch(/\nSettings here: override #2 \(general and its threads\)\.$/);
    expect(await statusIn(channelIds[1] ?? '')).toMatch(/\nSettings here: override #3\.$/);
    await world.discord.dispatchMessage({ channelId: dmChannelId, authorId: user.id, content: '/status' });
    await shownIn(dmChannelId, /\nSettings here: the defaults \(no entry of `overrides` matches this channel\)\.$/);
  });
});
