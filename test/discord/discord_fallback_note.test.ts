import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { botMessages, say } from '../support/discord_bot.js';
import { discordConversation, type DiscordConversation } from '../support/discord_conversation.js';
import { useConversationHarness } from '../support/conversation_harness.js';
import { FakeDiscord } from '../support/fake_discord/server.js';
import { anthropicErrorReply, anthropicText } from '../support/fake_llm/anthropic.js';
import { chatText } from '../support/fake_llm/openai_chat.js';
import { llmConfig, testProvider } from '../support/fake_llm/provider.js';
import { FakeLLMServer } from '../support/fake_llm/server.js';

const LLM = 'llm:\n  provider: anthropic\n  model: claude-main\n  fallbacks:\n    - { provider: openai, model: local-llama }\n';

describe('a reply written by a fallback model, on the local Discord', () => {
  const harness = useConversationHarness();
  let discord: FakeDiscord;
  let primaryServer: FakeLLMServer;
  let conversation: DiscordConversation | undefined;

  beforeEach(async () => {
    discord = await FakeDiscord.start();
    primaryServer = await FakeLLMServer.start();
  });
  afterEach(async () => {
    await conversation?.close();
    conversation = undefined;
    await discord.close();
    await primaryServer.close();
  });

  async function answered(note: string | undefined, primaryAnswers: boolean): Promise<string[]> {
    const primary = testProvider(llmConfig('anthropic', primaryServer.baseUrl, { model: 'claude-main' }));
    const fallback = testProvider(llmConfig('openai', harness.current.fake.baseUrl, { model: 'local-llama' }));
    const config = `${LLM}${note === undefined ? '' : `  fallback_note: ${JSON.stringify(note)}\n`}`;
    conversation = await discordConversation(discord, (sink, source) => harness.current.deps(config, { sink, source, provider: primary, fallbacks: [fallback] }));
    primaryServer.enqueue(primaryAnswers ? anthropicText('Milk is a drink.') : anthropicErrorReply(529, 'overloaded_error', 'Overloaded'));
    harness.current.fake.enqueue(chatText('Milk is a drink.'));
    await say(discord, 'what is milk?');
    await discord.whenRequest(() => botMessages(discord).some((m) => m.content.startsWith('Milk is a drink.')));
    await conversation.intake.idle();
    return botMessages(discord).map((m) => m.content);
  }

  it('ends with the default subscript naming the model', async () => {
    expect(await answered(undefined, false)).toEqual(['Milk is a drink.\n-# answered by local-llama']);
  });

  it('ends with the configured note instead', async () => {
    expect(await answered('-# (backup model <model> stood in)', false)).toEqual(['Milk is a drink.\n-# (backup model local-llama stood in)']);
  });

  it('ends with nothing when the note is empty', async () => {
    expect(await answered('', false)).toEqual(['Milk is a drink.']);
  });

  it('ends with nothing when the primary wrote it', async () => {
    expect(await answered(undefined, true)).toEqual(['Milk is a drink.']);
  });
});
