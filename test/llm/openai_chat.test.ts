import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Config } from '../../src/app/config_schema.js';
import { isLLMError, isLLMErrorOfKind, type LLMErrorKind } from '../../src/llm/errors.js';
import type { GenerateRequest } from '../../src/llm/protocol.js';
import { collectResponse, type LLMProvider, type StreamEvent } from '../../src/llm/provider.js';
import { CHAT_DONE, chatChunk, chatError, chatText, chatToolCalls } from '../support/fake_llm/openai_chat.js';
import { llmConfig, testProvider } from '../support/fake_llm/provider.js';
import { FakeLLMServer, sse } from '../support/fake_llm/server.js';

const hello: GenerateRequest = { messages: [{ role: 'user', content: [{ type: 'text', text: 'Hello' }] }] };
const errorSource = { provider: 'openai', model: 'test-model' };

let fake: FakeLLMServer;

beforeEach(async () => {
  fake = await FakeLLMServer.start();
});

afterEach(async () => {
  await fake.close();
});

function provider(overrides: Partial<Config['llm']> = {}): LLMProvider {
  return testProvider(llmConfig('openai', fake.baseUrl, overrides));
}

/** Everything the stream yielded, and the error it ended with, if any. */
async function run(request: GenerateRequest = hello, llm: LLMProvider = provider()): Promise<{ events: StreamEvent[]; error: unknown }> {
  const events: StreamEvent[] = [];
  try {
    for await (const event of llm.stream(request, { signal: new AbortController().signal })) events.push(event);
    return { events, error: undefined };
  } catch (error) {
    return { events, error };
  }
}

function textDeltas(events: readonly StreamEvent[]): string[] {
  return events.flatMap((event) => (event.type === 'text_delta' ? [event.text] : []));
}

describe('OpenAI chat completions: answers', () => {
  it('streams text as deltas and collects it into one text block with stop reason, usage and provenance', async () => {
    fake.enqueue(chatText(['Hel', 'lo', ' there'], { model: 'gpt-4.1-mini-2025-04-14', usage: { prompt_tokens: 12, completion_tokens: 3 } }));

    const { events, error } = await run();

    expect(error).toBeUndefined();
    expect(textDeltas(events)).toEqual(['Hel', 'lo', ' there']);
    expect(events.at(-1)).toEqual({
      type: 'done',
      response: {
        content: [{ type: 'text', text: 'Hello there' }],
        stopReason: 'end_turn',
        usage: { inputTokens: 12, outputTokens: 3 },
        provenance: { provider: 'openai', model: 'gpt-4.1-mini-2025-04-14', responseId: 'chatcmpl-test' },
      },
    });
  });

  it.each([
    ['length', 'max_tokens'],
    ['content_filter', 'content_filter'],
    ['eos', 'other'],
  ] as const)('maps finish_reason %s to stop reason %s', async (finishReason, stopReason) => {
    fake.enqueue(chatText('Cut', { finishReason }));

    const response = await collectResponse(provider().stream(hello, { signal: new AbortController().signal }));

    expect(response.stopReason).toBe(stopReason);
  });

  it('ignores comments, reasoning, role-only deltas, empty choices, odd shapes and bare JSON lines that are not errors', async () => {
    fake.enqueue({
      kind: 'stream',
      chunks: [
        ': keep-alive\n\n',
        chatChunk({ role: 'assistant' }),
        chatChunk({ reasoning_content: 'thinking it over' }),
        '{"status":"loading model"}\n',
        sse({ id: 'chatcmpl-test', choices: [] }),
        sse({ choices: 'nope', usage: 'none' }),
        sse({ choices: [null] }),
        sse({ choices: [{ delta: null, finish_reason: 7 }] }),
        sse({ choices: [{ delta: { tool_calls: 'none', content: 42 } }] }),
        chatChunk({ content: 'Answer' }),
        chatChunk({}, { finishReason: 'stop' }),
        CHAT_DONE,
      ],
    });

    const { events, error } = await run();

    expect(error).toBeUndefined();
    expect(textDeltas(events)).toEqual(['Answer']);
    expect(events.at(-1)).toMatchObject({ type: 'done', response: { content: [{ type: 'text', text: 'Answer' }], stopReason: 'end_turn' } });
  });

  it('reads usage that Moonshot puts inside the choice', async () => {
    fake.enqueue({
      kind: 'stream',
      chunks: [
        chatChunk({ content: 'Hi' }),
        sse({ id: 'chatcmpl-test', model: 'kimi-k2', choices: [{ index: 0, delta: {}, finish_reason: 'stop', usage: { prompt_tokens: 19, completion_tokens: 13, total_tokens: 32 } }] }),
        CHAT_DONE,
      ],
    });

    const response = await collectResponse(provider().stream(hello, { signal: new AbortController().signal }));

    expect(response.usage).toEqual({ inputTokens: 19, outputTokens: 13 });
  });

  it('finishes at [DONE] even when the server keeps the connection open, and closes it', async () => {
    fake.enqueue({ ...chatText('Hi'), then: 'stall' });

    const response = await collectResponse(provider().stream(hello, { signal: new AbortController().signal }));

    expect(response.content).toEqual([{ type: 'text', text: 'Hi' }]);
    await fake.whenClientClosed();
  });
});

describe('OpenAI chat completions: the request', () => {
  it('posts the model, the mapped transcript, tools and limits to /chat/completions with a bearer key', async () => {
    fake.enqueue(chatText('ok'));
    const request: GenerateRequest = {
      system: 'You are Holdfast.',
      messages: [
        { role: 'system', content: [{ type: 'text', text: 'Channel rules: be brief.' }] },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'What is in this picture?' },
            { type: 'image', mediaType: 'image/png', source: { kind: 'base64', data: 'iVBORw0KGgo=' } },
          ],
        },
        { role: 'assistant', content: [{ type: 'tool_use', id: 'call_a', name: 'search', input: { q: 'cat' } }] },
        { role: 'tool', content: [{ type: 'tool_result', toolUseId: 'call_a', content: 'a cat', isError: false }] },
        {
          role: 'assistant',
          content: [
            { type: 'text', text: 'One more look.' },
            { type: 'tool_use', id: 'call_b', name: 'search', input: {}, malformedInput: { raw: '{"q":', reason: 'not JSON' } },
          ],
        },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'And the other one?' },
            { type: 'tool_result', toolUseId: 'call_b', content: 'bad arguments', isError: true },
          ],
        },
      ],
      tools: [{ name: 'search', description: 'Searches the web', inputSchema: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] } }],
      toolChoice: 'none',
      maxTokens: 99,
      temperature: 0.3,
    };

    const { error } = await run(request, provider({ headers: { 'x-title': 'Holdfast' } }));

    expect(error).toBeUndefined();
    const [received] = fake.requests;
    expect(received).toMatchObject({ method: 'POST', path: '/v1/chat/completions' });
    expect(received?.headers).toMatchObject({ authorization: 'Bearer sk-test-key', 'content-type': 'application/json', 'x-title': 'Holdfast' });
    expect(received?.body).toEqual({
      model: 'test-model',
      stream: true,
      stream_options: { include_usage: true },
      max_tokens: 99,
      temperature: 0.3,
      tool_choice: 'none',
      tools: [
        {
          type: 'function',
          function: { name: 'search', description: 'Searches the web', parameters: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] } },
        },
      ],
      messages: [
        { role: 'system', content: 'You are Holdfast.' },
        { role: 'system', content: 'Channel rules: be brief.' },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'What is in this picture?' },
            { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } },
          ],
        },
        { role: 'assistant', content: null, tool_calls: [{ id: 'call_a', type: 'function', function: { name: 'search', arguments: '{"q":"cat"}' } }] },
        { role: 'tool', tool_call_id: 'call_a', content: 'a cat' },
        { role: 'assistant', content: 'One more look.', tool_calls: [{ id: 'call_b', type: 'function', function: { name: 'search', arguments: '{"q":' } }] },
        { role: 'tool', tool_call_id: 'call_b', content: 'Error: bad arguments' },
        { role: 'user', content: 'And the other one?' },
      ],
    });
  });

  it('sends no key to servers that need none, and falls back to the configured max_tokens and temperature', async () => {
    fake.enqueue(chatText('ok'));
    const { error } = await run(hello, provider({ api_key: undefined, temperature: 0.7 }));

    expect(error).toBeUndefined();
    expect(fake.requests[0]?.headers['authorization']).toBeUndefined();
    expect(fake.requests[0]?.body).toEqual({
      model: 'test-model',
      stream: true,
      stream_options: { include_usage: true },
      max_tokens: 256,
      temperature: 0.7,
      messages: [{ role: 'user', content: 'Hello' }],
    });
  });

  it('refuses an image that is still a blob reference, without sending anything', async () => {
    const request: GenerateRequest = { messages: [{ role: 'user', content: [{ type: 'image', mediaType: 'image/jpeg', source: { kind: 'blob', ref: 'blob-1' } }] }] };

    const { error } = await run(request);

    expect(isLLMErrorOfKind(error, 'request')).toBe(true);
    expect(error).toMatchObject({ ...errorSource, code: 'unresolved_blob' });
    expect(fake.requests).toHaveLength(0);
  });
});

describe('OpenAI chat completions: tool calls', () => {
  it('assembles calls whose arguments arrive in fragments into tool_use blocks, in order', async () => {
    fake.enqueue(
      chatToolCalls(
        [
          { id: 'call_weather', name: 'get_weather', args: '{"city":"Paris","unit":"celsius"}' },
          { id: 'call_time', name: 'get_time', args: '{"zone":"Europe/Paris"}' },
          { id: 'call_search', name: 'search', args: '{"q":"events in Paris","limit":3}' },
        ],
        { fragment: 4 },
      ),
    );

    const { events, error } = await run();

    expect(error).toBeUndefined();
    expect(events.filter((event) => event.type === 'tool_call_started')).toEqual([
      { type: 'tool_call_started', id: 'call_weather', name: 'get_weather' },
      { type: 'tool_call_started', id: 'call_time', name: 'get_time' },
      { type: 'tool_call_started', id: 'call_search', name: 'search' },
    ]);
    expect(events.at(-1)).toMatchObject({
      type: 'done',
      response: {
        stopReason: 'tool_use',
        content: [
          { type: 'tool_use', id: 'call_weather', name: 'get_weather', input: { city: 'Paris', unit: 'celsius' } },
          { type: 'tool_use', id: 'call_time', name: 'get_time', input: { zone: 'Europe/Paris' } },
          { type: 'tool_use', id: 'call_search', name: 'search', input: { q: 'events in Paris', limit: 3 } },
        ],
      },
    });
  });

  it('names calls that came without ids call_1, call_2, …', async () => {
    fake.enqueue(
      chatToolCalls([
        { name: 'roll', args: '{"sides":6}' },
        { name: 'roll', args: '{"sides":20}' },
      ]),
    );

    const response = await collectResponse(provider().stream(hello, { signal: new AbortController().signal }));

    expect(response.content).toEqual([
      { type: 'tool_use', id: 'call_1', name: 'roll', input: { sides: 6 } },
      { type: 'tool_use', id: 'call_2', name: 'roll', input: { sides: 20 } },
    ]);
  });

  it('keeps calls apart when the server gives them no index', async () => {
    fake.enqueue({
      kind: 'stream',
      chunks: [
        chatChunk({
          tool_calls: [
            { type: 'function', function: { name: 'first', arguments: '{"n":1}' } },
            { type: 'function', function: { name: 'second', arguments: '{"n":2}' } },
          ],
        }),
        chatChunk({}, { finishReason: 'tool_calls' }),
        CHAT_DONE,
      ],
    });

    const response = await collectResponse(provider().stream(hello, { signal: new AbortController().signal }));

    expect(response.content).toEqual([
      { type: 'tool_use', id: 'call_1', name: 'first', input: { n: 1 } },
      { type: 'tool_use', id: 'call_2', name: 'second', input: { n: 2 } },
    ]);
  });

  it("keeps a call's malformed arguments with the reason while the other calls parse", async () => {
    fake.enqueue(
      chatToolCalls([
        { id: 'call_ok', name: 'get_weather', args: '{"city":"Paris"}' },
        { id: 'call_cut', name: 'get_weather', args: '{"city": "Lon' },
        { id: 'call_list', name: 'get_weather', args: '[1, 2]' },
      ]),
    );

    const response = await collectResponse(provider().stream(hello, { signal: new AbortController().signal }));

    expect(response.stopReason).toBe('tool_use');
    expect(response.content).toEqual([
      { type: 'tool_use', id: 'call_ok', name: 'get_weather', input: { city: 'Paris' } },
      { type: 'tool_use', id: 'call_cut', name: 'get_weather', input: {}, malformedInput: { raw: '{"city": "Lon', reason: expect.stringMatching(/\S/) as unknown } },
      { type: 'tool_use', id: 'call_list', name: 'get_weather', input: {}, malformedInput: { raw: '[1, 2]', reason: expect.stringMatching(/\S/) as unknown } },
    ]);
  });
});

describe('OpenAI chat completions: errors inside a 200 stream', () => {
  it.each<[string, unknown, LLMErrorKind, Record<string, unknown>]>([
    ['type server_error', { error: { message: 'The server had an error', type: 'server_error', param: null, code: null } }, 'capacity', { code: 'server_error' }],
    ['code server_is_overloaded', { error: { message: 'Overloaded', type: 'server_error', param: null, code: 'server_is_overloaded' } }, 'capacity', { code: 'server_is_overloaded' }],
    ['type service_unavailable_error', { error: { message: 'Unavailable', type: 'service_unavailable_error' } }, 'capacity', { code: 'service_unavailable_error' }],
    ['vLLM code 503', { object: 'error', message: 'Engine overloaded', type: 'ServiceUnavailableError', param: null, code: 503 }, 'capacity', { status: 503 }],
    ['vLLM code 400', { object: 'error', message: 'max_tokens is too large', type: 'BadRequestError', param: null, code: 400 }, 'request', { status: 400 }],
    ['vLLM code 429', { object: 'error', message: 'Too many requests', type: 'TooManyRequests', param: null, code: 429 }, 'rate_limit', { status: 429 }],
  ])('classifies a frame with %s', async (_name, payload, kind, fields) => {
    fake.enqueue(chatError(payload, [chatChunk({ role: 'assistant', content: '' })]));

    const { error } = await run();

    expect(isLLMErrorOfKind(error, kind)).toBe(true);
    expect(error).toMatchObject({ ...errorSource, ...fields });
  });

  it.each([
    [502, 'transport'],
    [503, 'capacity'],
    [429, 'rate_limit'],
  ] as const)('delivers the text before an OpenRouter error chunk with code %i, then fails as %s', async (code, kind) => {
    const processing = ': OPENROUTER PROCESSING\n\n';
    fake.enqueue({
      kind: 'stream',
      chunks: [
        processing,
        chatChunk({ role: 'assistant', content: 'Let me' }),
        chatChunk({ content: ' think' }),
        processing,
        processing,
        sse({
          id: 'gen-123',
          object: 'chat.completion.chunk',
          model: 'test-model',
          provider: 'SomeUpstream',
          error: { code, message: 'Provider returned error', metadata: { provider_name: 'SomeUpstream' } },
          choices: [{ index: 0, delta: { content: '' }, finish_reason: 'error', native_finish_reason: 'error' }],
        }),
        CHAT_DONE,
      ],
    });

    const { events, error } = await run();

    expect(textDeltas(events)).toEqual(['Let me', ' think']);
    expect(isLLMErrorOfKind(error, kind)).toBe(true);
    expect(error).toMatchObject({ ...errorSource, status: code });
  });

  it("fails with a transport error on Ollama's bare error line", async () => {
    fake.enqueue({
      kind: 'stream',
      chunks: [chatChunk({ content: 'Par' }), '{"error":"an error was encountered while running the model: unexpected EOF"}\n'],
      then: 'stall',
    });

    const { events, error } = await run();

    expect(textDeltas(events)).toEqual(['Par']);
    expect(isLLMErrorOfKind(error, 'transport')).toBe(true);
    expect(error).toMatchObject(errorSource);
    await fake.whenClientClosed();
  });
});

describe('OpenAI chat completions: broken and cancelled streams', () => {
  it('fails with transport stream_truncated when the stream ends without [DONE]', async () => {
    fake.enqueue(chatText(['Hel', 'lo'], { then: 'truncate' }));

    const { events, error } = await run();

    expect(textDeltas(events)).toEqual(['Hel', 'lo']);
    expect(isLLMErrorOfKind(error, 'transport')).toBe(true);
    expect(error).toMatchObject({ ...errorSource, code: 'stream_truncated' });
  });

  it('fails with a retryable transport error on a frame that is not JSON, instead of answering with a hole in the text', async () => {
    const broken = 'data: {"id":"chatcmpl-test","choices":[{"index":0,"delta":{"content":"hel"\n\n';
    fake.enqueue({ kind: 'stream', chunks: [chatChunk({ role: 'assistant', content: '' }), broken, chatChunk({ content: 'lo' }), chatChunk({}, { finishReason: 'stop' }), CHAT_DONE] });

    const { events, error } = await run();

    expect(error).toMatchObject({ ...errorSource, kind: 'transport', code: 'malformed_frame', isRetryable: true });
    expect(events.some((event) => event.type === 'done')).toBe(false);
  });

  it('fails with transport empty_body on an empty 200 response', async () => {
    fake.enqueue({ kind: 'stream', chunks: [] });

    const { events, error } = await run();

    expect(events).toEqual([]);
    expect(isLLMErrorOfKind(error, 'transport')).toBe(true);
    expect(error).toMatchObject({ ...errorSource, code: 'empty_body' });
  });

  it('rejects with an AbortError, not an LLMError, when aborted mid-stream, and closes the connection', async () => {
    fake.enqueue(chatText('Hello', { then: 'stall' }));
    const controller = new AbortController();
    const events = provider().stream(hello, { signal: controller.signal })[Symbol.asyncIterator]();

    expect(await events.next()).toEqual({ done: false, value: { type: 'text_delta', text: 'Hello' } });
    controller.abort();
    const error = await events.next().then(
      () => undefined,
      (reason: unknown) => reason,
    );

    expect(error).toMatchObject({ name: 'AbortError' });
    expect(isLLMError(error)).toBe(false);
    await fake.whenClientClosed();
  });
});
