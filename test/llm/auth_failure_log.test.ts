import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Config } from '../../src/app/config_schema.js';
import { createProvider } from '../../src/llm/create_provider.js';
import type { GenerateRequest } from '../../src/llm/protocol.js';
import { collectResponse, type LLMProvider } from '../../src/llm/provider.js';
import { chatText } from '../support/fake_llm/openai_chat.js';
import { llmConfig } from '../support/fake_llm/provider.js';
import { FakeLLMServer, type FakeStep } from '../support/fake_llm/server.js';
import { LEVEL, LogLines, type LogLine } from '../support/log_lines.js';
import { ManualClock } from '../support/manual_clock.js';

const REQUEST: GenerateRequest = { messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }] };
const refused: FakeStep = { kind: 'reply', status: 401, body: { error: { type: 'invalid_api_key', message: 'Incorrect API key provided' } } };
const limited: FakeStep = { kind: 'reply', status: 429, body: { error: { type: 'rate_limit_error', message: 'slow down' } } };
const KEYS = ['sk-first-key-0123456789abcdef', 'sk-second-key-0123456789abcdef'];

describe('a refused API key in the log', () => {
  let fake: FakeLLMServer;
  let log: LogLines;
  beforeEach(async () => {
    fake = await FakeLLMServer.start();
    log = new LogLines('debug');
  });
  afterEach(() => fake.close());

  const provider = (overrides: Partial<Config['llm']>): LLMProvider => createProvider(llmConfig('openai', fake.baseUrl, overrides), { clock: new ManualClock(), logger: log.logger });
  const ask = (llm: LLMProvider): Promise<unknown> => collectResponse(llm.stream(REQUEST, { signal: new AbortController().signal })).catch((error: unknown) => error);
  const authLines = (): LogLine[] => log.lines.filter((line) => line['provider'] === 'openai' && line.msg.includes('refused'));

  it('is an ERROR the first time, naming the provider and the key’s position but never the key; later refusals of that key are not', async () => {
    const llm = provider({ api_key: undefined, api_keys: KEYS });
    fake.enqueue(limited, refused, refused, refused);
    for (let i = 0; i < 3; i++) expect(await ask(llm)).toMatchObject({ kind: 'auth' });

    expect(authLines()).toEqual([
      expect.objectContaining({ level: LEVEL.error, provider: 'openai', keyPosition: 2, status: 401, msg: expect.stringMatching(/refused API key 2 of 2/) as unknown }),
      expect.objectContaining({ level: LEVEL.debug, provider: 'openai', keyPosition: 2 }),
      expect.objectContaining({ level: LEVEL.debug, provider: 'openai', keyPosition: 2 }),
    ]);
    const written = JSON.stringify(log.lines);
    for (const key of KEYS) expect(written).not.toContain(key);
  });

  it('names position 1 for llm.api_key, and reports each refused key of a provider once at ERROR', async () => {
    const single = provider({ api_key: KEYS[0] });
    fake.enqueue(refused);
    await ask(single);
    expect(authLines()).toEqual([expect.objectContaining({ level: LEVEL.error, keyPosition: 1 })]);

    const rotating = provider({ api_key: undefined, api_keys: KEYS });
    fake.enqueue(refused, limited, refused, chatText('fine'));
    await ask(rotating);
    await ask(rotating);
    expect(await ask(rotating)).toMatchObject({ content: [{ type: 'text', text: 'fine' }] });
    expect(
      authLines()
        .slice(1)
        .map((line) => [line.level, line['keyPosition']]),
    ).toEqual([
      [LEVEL.error, 1],
      [LEVEL.error, 2],
    ]);
  });

  it('says so when the provider wants a key and none is configured', async () => {
    fake.enqueue(refused);
    await ask(provider({ api_key: undefined }));
    expect(authLines()).toEqual([expect.objectContaining({ level: LEVEL.error, keyPosition: null, msg: expect.stringMatching(/without an API key \(none is configured\)/) as unknown })]);
  });
});
