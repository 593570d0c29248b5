import { describe, expect, it } from 'vitest';
import { discordConfigYaml, userMessagesOf, type BotMessageBody } from '../support/discord_bot.js';
import { useDiscordWorld } from '../support/discord_world.js';
import { chatText } from '../support/fake_llm/openai_chat.js';

const OTHER_BOT = '1100000000000000077';
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAMAAAACCAYAAACddGYaAAAAEUlEQVR4nGP4z8DwH4YZkDkAm34L9XKwuTwAAAAASUVORK5CYII=', 'base64');

describe('what people send the bot on Discord', { timeout: 60_000 }, () => {
  const world = useDiscordWorld();

  async function start(vision = false): Promise<void> {
    await world.start(discordConfigYaml(world.discord, world.fake.baseUrl).replace('llm:\n', `llm:\n  vision: ${vision}\n`)).logged('connected to Discord');
  }

  it('answers a direct message without a mention, in the direct message', async () => {
    world.fake.enqueue(chatText('Milk is a drink.'));
    await start();
    const question = await world.discord.dispatchMessage({ channelId: world.discord.world.dmChannelId, authorId: world.discord.world.user.id, content: 'what is milk?' });
    const posted = await world.discord.whenRequest(
      (r) => r.method === 'POST' && r.path === `/channels/${world.discord.world.dmChannelId}/messages` && (r.body as BotMessageBody).content === 'Milk is a drink.',
    );
    expect((posted.body as BotMessageBody).message_reference?.message_id).toBe(question);
    expect(userMessagesOf(world.fake.requests[0]?.body)).toEqual([{ role: 'user', content: '[alice]: what is milk?' }]);
  });

  it('ignores messages that do not address it, and those of other bots', async () => {
    world.fake.enqueue(chatText('Only this one.'));
    await start();
    await world.discord.dispatchMessage({ channelId: world.discord.world.channelId, authorId: world.discord.world.user.id, content: 'talking to a friend' });
    await world.discord.dispatchMessage({ channelId: world.discord.world.channelId, authorId: OTHER_BOT, content: `<@${world.discord.world.bot.id}> hello`, mentionsBot: true, authorIsBot: true });
    await world.discord.dispatchMessage({ channelId: world.discord.world.channelId, authorId: world.discord.world.user.id, content: `<@${world.discord.world.bot.id}> and you?`, mentionsBot: true });
    await world.discord.whenRequest((r) => r.method === 'POST' && r.path === `/channels/${world.discord.world.channelId}/messages` && (r.body as BotMessageBody).content === 'Only this one.');
    expect(world.fake.requests).toHaveLength(1);
    expect(userMessagesOf(world.fake.requests[0]?.body)).toEqual([{ role: 'user', content: '[alice]: and you?' }]);
  });

  it('shows an attached image to a vision model and a text file to any model, with the message', async () => {
    world.fake.enqueue(chatText('A red dot, and your notes.'));
    await start(true);
    await world.discord.dispatchMessage({
      channelId: world.discord.world.channelId,
      authorId: world.discord.world.user.id,
      content: `<@${world.discord.world.bot.id}> what is in these?`,
      mentionsBot: true,
      attachments: [
        { filename: 'dot.png', contentType: 'image/png', data: PNG },
        { filename: 'notes.txt', contentType: 'text/plain; charset=utf-8', data: Buffer.from('buy milk') },
      ],
    });
    await world.fake.whenRequests(1);
    const content = JSON.stringify(userMessagesOf(world.fake.requests[0]?.body));
    expect(content).toContain('what is in these?');
    expect(content).toContain(`data:image/png;base64,${PNG.toString('base64')}`);
    expect(content).toContain('buy milk');
  });
});
