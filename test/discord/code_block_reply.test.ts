import { describe, expect, it } from 'vitest';
import { botMessages, discordConfigYaml, isPost, say, type BotMessageBody } from '../support/discord_bot.js';
import { useDiscordWorld } from '../support/discord_world.js';
import { chatText } from '../support/fake_llm/openai_chat.js';

/** About 1,000 characters of prose, then a ~1,500-character ```python block that would straddle the 2,000 mark, then a closing line. */
function answerWithStraddlingBlock(): { prose: string; block: string; answer: string } {
  const prose = Array.from({ length: 18 }, (_, i) => `Line ${String(i).padStart(2, '0')}: milk is a drink that people pour into their tea.`).join('\n');
  const block = ['```python', ...Array.from({ length: 40 }, (_, i) => `total_${String(i).padStart(2, '0')} = pour("milk", ${String(i).padStart(2, '0')})  # .....`), '```'].join('\n');
  return { prose, block, answer: `${prose}\n${block}\nThat is all.` };
}

describe('a code block in a reply on Discord', { timeout: 60_000 }, () => {
  const world = useDiscordWorld();

  it('arrives whole in one message when it fits in one, although it straddles the 2,000 mark', async () => {
    const { prose, block, answer } = answerWithStraddlingBlock();
    expect(block.length).toBeGreaterThan(1400);
    expect(answer.indexOf('```')).toBeLessThan(2000);
    expect(answer.lastIndexOf('```')).toBeGreaterThan(2000);
    world.fake.enqueue(chatText(answer));
    await world.start(discordConfigYaml(world.discord, world.fake.baseUrl)).logged('connected to Discord');
    const asked = await say(world.discord, 'show me the code');
    await world.discord.whenRequest((r) => isPost(world.discord)(r) && (r.status !== 200 || (r.body as BotMessageBody).message_reference === undefined));
    const shownNow = botMessages(world.discord);
    expect(shownNow.map((m) => [m.content, m.message_reference?.message_id])).toEqual([
      [prose, asked],
      [`${block}\nThat is all.`, undefined],
    ]);
  });
});
