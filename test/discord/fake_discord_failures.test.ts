import { once } from 'node:events';
import { HTTPError, RateLimitError } from 'discord.js';
import { afterEach, describe, expect, it } from 'vitest';
import { closeFakeClients, guildChannel, isPost, loggedIn, postStatuses } from '../support/fake_discord/clients.js';

afterEach(closeFakeClients);

describe('FakeDiscord failing requests, as discord.js sees them', () => {
  it('answers a repeated nonce with the earlier message only when enforce_nonce is set', async () => {
    const { fake, client } = await loggedIn();
    const channel = guildChannel(fake, client);

    const first = await channel.send({ content: 'once', nonce: 'nonce-1', enforceNonce: true });
    const again = await channel.send({ content: 'once', nonce: 'nonce-1', enforceNonce: true });
    const loose = await channel.send({ content: 'twice', nonce: 'nonce-2' });
    const looseAgain = await channel.send({ content: 'twice', nonce: 'nonce-2' });

    expect(first.nonce).toBe('nonce-1');
    expect(again.id).toBe(first.id);
    expect(looseAgain.id).not.toBe(loose.id);
    expect(fake.messagesIn(fake.world.channelId).map((m) => m.content)).toEqual(['once', 'twice', 'twice']);
    expect(postStatuses(fake)).toEqual([200, 200, 200, 200]);
  });

  it('fails a message post once with 500 and discord.js retries it into one message', async () => {
    const { fake, client } = await loggedIn();
    fake.failNext(isPost(fake), { status: 500 });

    const sent = await guildChannel(fake, client).send('survives');

    expect(postStatuses(fake)).toEqual([500, 200]);
    expect(fake.messagesIn(fake.world.channelId).map((m) => m.id)).toEqual([sent.id]);
  });

  it('creates the message before a lost 500 answer, so only a nonce keeps the retry from doubling it', async () => {
    const { fake, client } = await loggedIn();
    const channel = guildChannel(fake, client);
    fake.failNext(isPost(fake), { status: 500, afterEffect: true });
    await channel.send('doubled');

    fake.failNext(isPost(fake), { status: 500, afterEffect: true });
    const sent = await channel.send({ content: 'kept once', nonce: 'turn-7', enforceNonce: true });

    expect(postStatuses(fake)).toEqual([500, 200, 500, 200]);
    const stored = fake.messagesIn(fake.world.channelId);
    expect(stored.filter((m) => m.content === 'doubled')).toHaveLength(2);
    expect(stored.filter((m) => m.content === 'kept once').map((m) => m.id)).toEqual([sent.id]);
  });

  it('rejects with HTTPError once discord.js has used up its retries on 5xx answers', async () => {
    const { fake, client } = await loggedIn();
    fake.failNext(isPost(fake), { status: 503, times: 4 });

    const error: unknown = await guildChannel(fake, client)
      .send('lost')
      .catch((e: unknown) => e);

    expect(error).toBeInstanceOf(HTTPError);
    expect((error as HTTPError).status).toBe(503);
    expect(postStatuses(fake)).toEqual([503, 503, 503, 503]);
    expect(fake.messagesIn(fake.world.channelId)).toEqual([]);
  });

  it('rate-limits a post with 429, which discord.js waits out and retries', async () => {
    const { fake, client } = await loggedIn();
    fake.failNext(isPost(fake), { status: 429, retryAfterSeconds: 0.02 });
    const limited = once(client.rest, 'rateLimited');

    const sent = await guildChannel(fake, client).send('patient');

    await limited;
    expect(postStatuses(fake)).toEqual([429, 200]);
    expect(fake.messagesIn(fake.world.channelId).map((m) => m.id)).toEqual([sent.id]);
  });

  it('answers 429 in the shape discord.js reads as a user-scoped rate limit', async () => {
    const { fake, client } = await loggedIn({ rejectOnRateLimit: ['/channels'] });
    fake.failNext(isPost(fake), { status: 429, retryAfterSeconds: 2 });

    const error: unknown = await guildChannel(fake, client)
      .send('too fast')
      .catch((e: unknown) => e);

    expect(error).toBeInstanceOf(RateLimitError);
    expect(error).toMatchObject({ global: false, scope: 'user', limit: 5, method: 'POST' });
    expect((error as RateLimitError).retryAfter).toBeGreaterThanOrEqual(2000);
    expect(postStatuses(fake)).toEqual([429]);
    expect(fake.messagesIn(fake.world.channelId)).toEqual([]);
  });
});
