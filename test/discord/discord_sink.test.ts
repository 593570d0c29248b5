import { once } from 'node:events';
import { Events, type ChatInputCommandInteraction, type Client, type Interaction } from 'discord.js';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import type { ReplySink } from '../../src/conversation/transport.js';
import { ManualClock } from '../support/manual_clock.js';
import { CommandAnswers } from '../../src/discord/command_answers.js';
import { discordSink } from '../../src/discord/discord_sink.js';
import { TYPING_MAX_MS, TYPING_RENEW_MS } from '../../src/discord/typing.js';
import { closeFakeClients, loggedIn } from '../support/fake_discord/clients.js';
import type { FakeDiscord } from '../support/fake_discord/server.js';

afterEach(closeFakeClients);

describe('the Discord sink, driven by the manual clock', () => {
  async function sinkOnDiscord(requestsPerSecond = 50): Promise<{ fake: FakeDiscord; client: Client; clock: ManualClock; sink: ReplySink; shutdown: AbortController; commands: CommandAnswers }> {
    const { fake, client } = await loggedIn();
    const clock = new ManualClock();
    const shutdown = new AbortController();
    const commands = new CommandAnswers(clock);
    const sink = discordSink({
      client,
      clock,
      logger: pino({ level: 'silent' }),
      editIntervalMs: 1500,
      requestsPerSecond,
      delivery: { clock, backoffMs: 1000, deadlineMs: 60_000, signal: shutdown.signal },
      commands,
    });
    return { fake, client, clock, sink, shutdown, commands };
  }

  /** Uses slash command `name` and resolves once the bot acknowledged it, to its user alone. */
  async function openCommand(fake: FakeDiscord, client: Client, commands: CommandAnswers, name: string): Promise<{ id: string; token: string }> {
    const received = once(client, Events.InteractionCreate) as Promise<[Interaction]>;
    const sent = await fake.dispatchInteraction({ name });
    const [interaction] = await received;
    await commands.open(interaction as ChatInputCommandInteraction);
    return sent;
  }

  it('keeps showing the typing indicator while a turn works, and stops once its text shows', async () => {
    const { fake, clock, sink } = await sinkOnDiscord();
    const channelId = fake.world.channelId;
    const typed = (): number => fake.requests.filter((r) => r.method === 'POST' && r.path === `/channels/${channelId}/typing`).length;
    sink.post({ type: 'turn', channelId, turn: 't1', status: 'ACTIVE' });
    await fake.whenRequest(() => typed() === 1);
    await clock.whenSleeping();
    await clock.advance(TYPING_RENEW_MS);
    await fake.whenRequest(() => typed() === 2);
    await clock.whenSleeping();
    await clock.advance(TYPING_RENEW_MS);
    await fake.whenRequest(() => typed() === 3);

    sink.post({ type: 'delta', channelId, inReplyTo: 'm1', turn: 't1', text: 'Milk' });
    await clock.advance(3 * TYPING_RENEW_MS);
    sink.post({ type: 'message', channelId, inReplyTo: 'm1', turn: 't1', kind: 'notice', notice: 'cancelled', text: 'Stopped.' });
    await fake.whenRequest((r) => r.method === 'PATCH' && (r.body as { content?: string }).content === 'ℹ️ Stopped.');
    expect(typed()).toBe(3);
  });

  it('leaves the typing indicator out while half of the second’s requests are spent, and never a reply', async () => {
    const { fake, clock, sink } = await sinkOnDiscord(4);
    const channelId = fake.world.channelId;
    const typed = (): number => fake.requests.filter((r) => r.method === 'POST' && r.path === `/channels/${channelId}/typing`).length;
    const posted = (): string[] => fake.requests.filter((r) => r.method === 'POST' && r.path === `/channels/${channelId}/messages`).map((r) => (r.body as { content: string }).content);

    sink.post({ type: 'turn', channelId, turn: 't1', status: 'ACTIVE' });
    sink.post({ type: 'turn', channelId, turn: 't2', status: 'ACTIVE' });
    sink.post({ type: 'turn', channelId, turn: 't3', status: 'ACTIVE' });
    sink.post({ type: 'delta', channelId, inReplyTo: 'm4', turn: 't4', text: 'Milk' });
    sink.post({ type: 'delta', channelId, inReplyTo: 'm5', turn: 't5', text: 'Bread' });
    await fake.whenRequest(() => posted().length === 2);
    expect(typed()).toBe(2);
    expect(posted()).toEqual(['Milk', 'Bread']);

    await clock.advance(1_000);
    sink.post({ type: 'turn', channelId, turn: 't6', status: 'ACTIVE' });
    await fake.whenRequest(() => typed() === 3);
  });

  it('counts only the requests that go out: text the edit interval holds back leaves the typing indicator its share', async () => {
    const { fake, clock, sink } = await sinkOnDiscord(4);
    const channelId = fake.world.channelId;
    const typed = (): number => fake.requests.filter((r) => r.method === 'POST' && r.path === `/channels/${channelId}/typing`).length;
    const drafts = (): number => fake.requests.filter((r) => r.method === 'POST' && r.path === `/channels/${channelId}/messages`).length;

    sink.post({ type: 'delta', channelId, inReplyTo: 'm1', turn: 't1', text: 'Milk' });
    for (const word of [' is', ' a', ' drink', ' made', ' by', ' cows']) sink.post({ type: 'delta', channelId, inReplyTo: 'm1', turn: 't1', text: word });
    sink.post({ type: 'turn', channelId, turn: 't2', status: 'ACTIVE' });
    // The channel's requests go out in order: the typing indicator is decided on after every delta was looked at.
    await fake.whenRequest(() => typed() === 1);
    expect(drafts()).toBe(1);
    expect(fake.requests.filter((r) => r.method === 'PATCH')).toEqual([]);
    expect(clock.monotonicNow()).toBe(0);
  });

  it('edits a suspended notice in place when it is updated, and posts nothing for a notice it never showed', async () => {
    const { fake, sink } = await sinkOnDiscord();
    const channelId = fake.world.channelId;
    sink.post({ type: 'message', channelId, inReplyTo: 'm1', turn: 't1', kind: 'notice', notice: 'suspended', text: 'Saved; I try again at 14:05 UTC.' });
    sink.post({ type: 'notice_update', channelId, turn: 't2', notice: 'suspended', text: 'Never shown.' });
    sink.post({ type: 'notice_update', channelId, turn: 't1', notice: 'suspended', text: 'Saved; I try again at 14:07 UTC.' });
    await fake.whenRequest((r) => r.method === 'PATCH');
    const toDiscord = fake.requests.filter((r) => r.path.startsWith(`/channels/${channelId}/messages`)).map((r) => `${r.method} ${(r.body as { content: string }).content}`);
    expect(toDiscord).toEqual(['POST ℹ️ Saved; I try again at 14:05 UTC.', 'PATCH ℹ️ Saved; I try again at 14:07 UTC.']);
  });

  it('shows in the draft that the turn waits for the model, the latest wait at most once per interval, until the next attempt’s text replaces it', async () => {
    const { fake, clock, sink } = await sinkOnDiscord();
    const channelId = fake.world.channelId;
    const drafts = (): string[] =>
      fake.requests
        .filter((r) => (r.method === 'POST' || r.method === 'PATCH') && r.path.startsWith(`/channels/${channelId}/messages`))
        .map((r) => `${r.method} ${(r.body as { content: string }).content}`);
    const waiting = (attempt: number, seconds: number): void =>
      sink.post({ type: 'waiting', channelId, inReplyTo: 'm1', turn: 't1', attempt, text: `waiting for the model (attempt ${attempt}, ${seconds} s)…` });

    sink.post({ type: 'delta', channelId, inReplyTo: 'm1', turn: 't1', text: 'Milk is' });
    await fake.whenRequest((r) => r.method === 'POST');
    await clock.advance(1500);
    waiting(2, 3);
    await fake.whenRequest((r) => r.method === 'PATCH');
    waiting(3, 3);
    waiting(4, 4);
    await clock.whenSleeping();
    expect(drafts()).toEqual(['POST Milk is', 'PATCH ℹ️ waiting for the model (attempt 2, 3 s)…']);
    await clock.advance(1500);
    await fake.whenRequest(() => drafts().length === 3);
    expect(drafts()[2]).toBe('PATCH ℹ️ waiting for the model (attempt 4, 4 s)…');

    await clock.advance(1500);
    sink.post({ type: 'delta', channelId, inReplyTo: 'm1', turn: 't1', text: 'Milk is white.' });
    await fake.whenRequest(() => drafts().length === 4);
    expect(drafts()[3]).toBe('PATCH Milk is white.');
    await sink.deliver({ channelId, inReplyTo: 'm1', turn: 't1', text: 'Milk is white.', partsDelivered: 0, redelivery: false }, () => Promise.resolve());
    expect(drafts().filter((draft) => draft.includes('waiting'))).toHaveLength(2);
    expect(
      fake
        .messagesIn(channelId)
        .filter((m) => m.author.id === fake.world.bot.id)
        .map((m) => m.content),
    ).toEqual(['Milk is white.']);
  });

  it('stops renewing an indicator after fifteen minutes, whatever became of its turn', async () => {
    const { fake, clock, sink } = await sinkOnDiscord();
    const channelId = fake.world.channelId;
    const typed = (): number => fake.requests.filter((r) => r.path === `/channels/${channelId}/typing`).length;
    sink.post({ type: 'turn', channelId, turn: 't1', status: 'ACTIVE' });
    for (let elapsed = 0, shown = 1; elapsed < TYPING_MAX_MS; elapsed += TYPING_RENEW_MS, shown += 1) {
      await fake.whenRequest(() => typed() === shown);
      await clock.whenSleeping();
      await clock.advance(TYPING_RENEW_MS);
    }
    await clock.advance(TYPING_RENEW_MS);
    sink.post({ type: 'message', channelId, inReplyTo: 'm1', turn: null, kind: 'notice', notice: 'status', text: 'Still here.' });
    await fake.whenRequest((r) => r.method === 'POST' && (r.body as { content?: string } | undefined)?.content === 'ℹ️ Still here.');
    expect(typed()).toBe(Math.ceil(TYPING_MAX_MS / TYPING_RENEW_MS));
  });

  it('stops every typing indicator when the bot shuts down', async () => {
    const { fake, clock, sink, shutdown } = await sinkOnDiscord();
    const channelId = fake.world.channelId;
    sink.post({ type: 'turn', channelId, turn: 't1', status: 'ACTIVE' });
    await clock.whenSleeping();
    shutdown.abort();
    await clock.advance(3 * TYPING_RENEW_MS);
    sink.post({ type: 'message', channelId, inReplyTo: 'm1', turn: null, kind: 'notice', notice: 'status', text: 'Bye.' });
    await fake.whenRequest((r) => r.method === 'POST' && (r.body as { content?: string } | undefined)?.content === 'ℹ️ Bye.');
    expect(fake.requests.filter((r) => r.path === `/channels/${channelId}/typing`)).toHaveLength(1);
  });

  it('answers a command whose answer is too long for one message to its user alone, the rest as follow-ups', async () => {
    const { fake, client, sink, commands } = await sinkOnDiscord();
    const sent = await openCommand(fake, client, commands, 'status');
    const text = `${'a'.repeat(1_500)}\n${'b'.repeat(1_500)}`;
    sink.post({ type: 'message', channelId: fake.world.channelId, inReplyTo: sent.id, turn: null, kind: 'notice', notice: 'status', text });
    const followUp = await fake.whenRequest((r) => r.method === 'POST' && r.path.startsWith('/webhooks/') && r.path.endsWith(`/${sent.token}`));
    expect(followUp.body).toMatchObject({ content: 'b'.repeat(1_500), flags: 64 });
    const first = fake.requests.find((r) => r.method === 'PATCH' && r.path.endsWith(`/${sent.token}/messages/@original`));
    expect(first?.body).toMatchObject({ content: `ℹ️ ${'a'.repeat(1_500)}` });
    expect(fake.requests.filter((r) => r.method === 'POST' && r.path === `/channels/${fake.world.channelId}/messages`)).toEqual([]);
  });

  it('answers in the channel a command Discord no longer lets it answer, fourteen minutes after it was used', async () => {
    const { fake, client, clock, sink, commands } = await sinkOnDiscord();
    const old = await openCommand(fake, client, commands, 'status');
    await clock.advance(14 * 60_000);
    await openCommand(fake, client, commands, 'status');
    sink.post({ type: 'message', channelId: fake.world.channelId, inReplyTo: old.id, turn: null, kind: 'notice', notice: 'status', text: 'Late.' });
    await fake.whenRequest((r) => r.method === 'POST' && r.path === `/channels/${fake.world.channelId}/messages` && (r.body as { content?: string }).content === 'ℹ️ Late.');
    expect(fake.requests.filter((r) => r.path.endsWith(`/${old.token}/messages/@original`))).toEqual([]);
  });
});
