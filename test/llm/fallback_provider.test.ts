import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createFallbackProvider } from '../../src/llm/create_provider.js';
import type { GenerateRequest } from '../../src/llm/protocol.js';
import { collectResponse } from '../../src/llm/provider.js';
import { chatText } from '../support/fake_llm/openai_chat.js';
import { llmConfig } from '../support/fake_llm/provider.js';
import { FakeLLMServer } from '../support/fake_llm/server.js';
import { ManualClock } from '../support/manual_clock.js';

/** A transcript the primary model saw an image in. */
const WITH_IMAGE: GenerateRequest = {
  messages: [
    {
      role: 'user',
      content: [
        { type: 'text', text: 'What is in this picture?' },
        { type: 'image', mediaType: 'image/png', source: { kind: 'base64', data: 'iVBORw0KGgo=' } },
      ],
    },
  ],
};

describe('a fallback model', () => {
  let fake: FakeLLMServer;
  beforeEach(async () => {
    fake = await FakeLLMServer.start();
  });
  afterEach(() => fake.close());

  const ask = async (vision: boolean): Promise<unknown> => {
    fake.enqueue(chatText('A cat.'));
    const provider = createFallbackProvider(
      { ...llmConfig('openai', fake.baseUrl, { model: 'local-llama' }), model: 'local-llama', vision },
      { clock: new ManualClock(), logger: pino({ level: 'silent' }) },
    );
    await collectResponse(provider.stream(WITH_IMAGE, { signal: new AbortController().signal }));
    return fake.requests.at(-1)?.body;
  };

  it('that cannot see images is told one was left out, instead of being sent it', async () => {
    expect(await ask(false)).toMatchObject({
      messages: [{ role: 'user', content: 'What is in this picture?\n[An image is left out here: this model is not set up to see images.]' }],
    });
  });

  it('that can see images is sent them', async () => {
    expect(await ask(true)).toMatchObject({ messages: [{ role: 'user', content: [{ type: 'text' }, { type: 'image_url' }] }] });
  });
});
