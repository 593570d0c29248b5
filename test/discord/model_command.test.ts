import { describe, expect, it } from 'vitest';
import { discordConfigYaml, posts, replyTo, say } from '../support/discord_bot.js';
import { useDiscordWorld } from '../support/discord_world.js';
import type { CommandOptionJson } from '../support/fake_discord/server.js';
import { chatText } from '../support/fake_llm/openai_chat.js';

/** A member of the guild who is not one of `permissions.admins`. */
const NOT_AN_ADMIN = '1100000000000000042';
const REFUSED = 'ℹ️ Only the bot’s admins can use /model.';

const option = (name: string, value: string): CommandOptionJson => ({ name, type: 3, value });

describe('the admins’ /model on Discord', { timeout: 60_000 }, () => {
  const world = useDiscordWorld();

  /** Starts the bot with two models on the fake, `test-model` first, and the world's user as its one admin; resolves once it is connected. */
  async function started(): Promise<void> {
    const yaml = discordConfigYaml(world.discord, world.fake.baseUrl, `permissions:\n  admins: ['${world.discord.world.user.id}']\n`).replace(
      '  model: test-model\n',
      `  model: test-model\n  fallbacks:\n    - { provider: openai, base_url: ${world.fake.baseUrl}, model: fast-model }\n`,
    );
    await world.start(yaml).logged('connected to Discord');
  }

  /** Uses slash command `/model` (by the world's user, an admin, unless told); resolves with its answer, once Discord was told it is for its user alone. */
  async function model(options: readonly CommandOptionJson[] = [], userId?: string): Promise<string> {
    const sent = await world.discord.dispatchInteraction({ name: 'model', options, ...(userId === undefined ? {} : { userId }) });
    const ack = await world.discord.whenRequest((r) => r.method === 'POST' && r.path === `/interactions/${sent.id}/${sent.token}/callback`);
    expect(ack.body).toEqual({ type: 5, data: { flags: 64 } });
    const answer = await world.discord.whenRequest((r) => r.method === 'PATCH' && r.path.endsWith(`/${sent.token}/messages/@original`));
    return (answer.body as { content: string }).content;
  }

  /** The world's user asks the bot something in its channel; resolves with the model the fake was asked by, once the reply is posted. */
  async function modelAsked(text: string): Promise<unknown> {
    const asked = world.fake.requests.length;
    world.fake.enqueue(chatText('Answered.'));
    await replyTo(world.discord, await say(world.discord, text));
    return (world.fake.requests[asked]?.body as { model?: unknown }).model;
  }

  it('registers /model for server administrators with an optional name, and lets an admin pick the model the channel’s next request uses', async () => {
    await started();
    const registered = world.discord.requests.find((r) => r.method === 'PUT' && r.path.endsWith('/commands'));
    const command = (registered?.body as { name: string; default_member_permissions?: string; contexts?: number[]; options?: unknown[] }[]).find((c) => c.name === 'model');
    expect(command).toMatchObject({ default_member_permissions: '0', contexts: [0], options: [{ name: 'name', type: 3, required: false }] });

    expect(await model()).toBe(
      'ℹ️ Models here, in the order they are tried (`/model NAME` picks the one tried first, `/model default` goes back to the configured order):\n• `test-model`: in use\n• `fast-model`',
    );
    expect(await model([option('name', 'fast-model')])).toBe('ℹ️ From the next request on, this channel uses `fast-model` (then `test-model` when it is overloaded).');
    expect(await modelAsked('which model are you?')).toBe('fast-model');
    // The answers went to the admin alone: the channel saw only the reply.
    expect(posts(world.discord).map((post) => post.content)).toEqual(['Answered.']);
  });

  it('names the chosen model in /status, refuses a model the channel does not have, and goes back to the configured order on `default`', async () => {
    await started();
    expect(await model([option('name', 'FAST-MODEL')])).toMatch(/uses `fast-model`/);
    const status = await world.discord.dispatchInteraction({ name: 'status' });
    const answer = await world.discord.whenRequest((r) => r.method === 'PATCH' && r.path.endsWith(`/${status.token}/messages/@original`));
    expect((answer.body as { content: string }).content).toContain('Model here: `fast-model`, chosen by an admin (`/model default` goes back to the configured order).');
    expect(await model([option('name', 'gpt-nine')])).toBe('ℹ️ There is no model `gpt-nine` here: the models of this channel are `test-model` and `fast-model`.');
    expect(await model([option('name', 'default')])).toMatch(/^ℹ️ This channel is back to the configured order: `test-model`/);
    expect(await modelAsked('which model are you?')).toBe('test-model');
  });

  it('refuses /model to anyone not in permissions.admins, to them alone or in the channel when typed, and keeps the channel’s model', async () => {
    await started();
    expect(await model([option('name', 'fast-model')], NOT_AN_ADMIN)).toBe(REFUSED);
    expect(world.fake.requests).toEqual([]);
    expect(await modelAsked('which model are you?')).toBe('test-model');

    const typed = await say(world.discord, '/model fast-model', NOT_AN_ADMIN);
    expect((await replyTo(world.discord, typed)).content).toBe(REFUSED);
    expect(await modelAsked('and now?')).toBe('test-model');
  });
});
