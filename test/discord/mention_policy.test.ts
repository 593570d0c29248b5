import { describe, expect, it } from 'vitest';
import { addressesBot, SAFE_MENTIONS, withoutBotMention, type TriggerView } from '../../src/discord/mention_policy.js';

const BOT = '900';
const base: TriggerView = { authorId: '1', authorIsBot: false, channelId: 'general', parentChannelId: undefined, isDirectMessage: false, mentionsBot: false, repliesToBot: false };

describe('which messages are for the bot', () => {
  it.each<[string, Partial<TriggerView>, boolean]>([
    ['an ordinary message in an ordinary channel is not', {}, false],
    ['a mention is', { mentionsBot: true }, true],
    ['a reply to the bot is', { repliesToBot: true }, true],
    ['a direct message is', { isDirectMessage: true }, true],
    ['any message in a listened channel is', { channelId: 'ask-the-bot' }, true],
    ['a message in a thread of a listened channel is', { channelId: 'thread-7', parentChannelId: 'ask-the-bot' }, true],
    ['another bot’s mention is not', { mentionsBot: true, authorIsBot: true }, false],
    ['the bot’s own message is not, even in a listened channel', { authorId: BOT, channelId: 'ask-the-bot' }, false],
  ])('%s', (_case, view, expected) => {
    expect(addressesBot({ ...base, ...view }, BOT, ['ask-the-bot'])).toBe(expected);
  });

  it('reads the text without the leading mention', () => {
    expect(withoutBotMention('<@900> what is milk?', BOT)).toBe('what is milk?');
    expect(withoutBotMention('<@!900>   hi', BOT)).toBe('hi');
    expect(withoutBotMention('hi <@900>', BOT)).toBe('hi <@900>');
  });

  it('lets no text of the model ping anyone', () => {
    expect(SAFE_MENTIONS).toEqual({ parse: [], repliedUser: true });
  });
});
