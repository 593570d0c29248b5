import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Config } from '../../src/app/config_schema.js';
import { isLLMError, isLLMErrorOfKind, type LLMErrorKind } from '../../src/llm/errors.js';
import { toolUses, type GenerateRequest, type GenerateResponse } from '../../src/llm/protocol.js';
import { collectResponse, type StreamEvent } from '../../src/llm/provider.js';
import {
  ANTHROPIC_DEFAULTS,
  anthropicError,
  anthropicErrorReply,
  anthropicEvent,
  anthropicFinish,
  anthropicStart,
  anthropicText,
  anthropicTextBlock,
  anthropicToolUse,
  anthropicToolUseBlock,
} from '../support/fake_llm/anthropic.js';
import { llmConfig, testProvider } from '../support/fake_llm/provider.js';
import { FakeLLMServer, type FakeStep } from '../support/fake_llm/server.js';

const HI: GenerateRequest = { messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }] };

describe('anthropic provider', () => {
  let fake: FakeLLMServer;
  beforeEach(async () => {
    fake = await FakeLLMServer.start();
  });
  afterEach(() => fake.close());

  const provider = (overrides: Partial<Config['llm']> = {}) => testProvider(llmConfig('anthropic', fake.baseUrl, overrides));

  /** Streams `request` against `step` and returns every event. */
  async function run(step: FakeStep, request: GenerateRequest = HI): Promise<StreamEvent[]> {
    fake.enqueue(step);
    const events: StreamEvent[] = [];
    for await (const event of provider().stream(request, { signal: new AbortController().signal })) events.push(event);
    return events;
  }

  /** What streaming `request` against `steps` fails with. */
  async function failure(steps: FakeStep[], request: GenerateRequest = HI): Promise<unknown> {
    fake.enqueue(...steps);
    return collectResponse(provider().stream(request, { signal: new AbortController().signal })).then(
      (response) => new Error(`expected a failure, got ${JSON.stringify(response)}`),
      (error: unknown) => error,
    );
  }

  /** The response a finished stream ended with. */
  function responseOf(events: readonly StreamEvent[]): GenerateResponse {
    const last = events.at(-1);
    if (last?.type !== 'done') throw new Error('the stream did not finish');
    return last.response;
  }

  /** The body of the most recent request the server received. */
  const lastBody = (): unknown => fake.requests.at(-1)?.body;

  describe('a text answer', () => {
    it('streams text deltas and collects them into one text block with usage and provenance', async () => {
      const events = await run(anthropicText(['Hel', 'lo, ', 'world']));
      expect(events.slice(0, -1)).toEqual([
        { type: 'text_delta', text: 'Hel' },
        { type: 'text_delta', text: 'lo, ' },
        { type: 'text_delta', text: 'world' },
      ]);
      expect(events.at(-1)).toEqual({
        type: 'done',
        response: {
          content: [{ type: 'text', text: 'Hello, world' }],
          stopReason: 'end_turn',
          usage: { inputTokens: ANTHROPIC_DEFAULTS.inputTokens, outputTokens: ANTHROPIC_DEFAULTS.outputTokens },
          provenance: { provider: 'anthropic', model: ANTHROPIC_DEFAULTS.model, responseId: ANTHROPIC_DEFAULTS.id },
        },
      });
    });

    it('takes model and id from message_start and the token counts from message_start and message_delta', async () => {
      const response = responseOf(await run(anthropicText('ok', { model: 'claude-other', id: 'msg_42', inputTokens: 1234, outputTokens: 56 })));
      expect(response.provenance).toEqual({ provider: 'anthropic', model: 'claude-other', responseId: 'msg_42' });
      expect(response.usage).toEqual({ inputTokens: 1234, outputTokens: 56 });
    });

    it('counts the prompt-cache reads and writes into the input tokens, and reports them apart', async () => {
      const response = responseOf(await run(anthropicText('ok', { inputTokens: 12, cacheReadTokens: 3000, cacheWriteTokens: 450, outputTokens: 56 })));
      expect(response.usage).toEqual({ inputTokens: 3462, outputTokens: 56, cacheReadTokens: 3000, cacheWriteTokens: 450 });
    });

    it('takes the counts message_delta reports as the final ones', async () => {
      const usage = { input_tokens: 40, cache_read_input_tokens: 100, cache_creation_input_tokens: 0, output_tokens: 9 };
      const delta = anthropicEvent('message_delta', { delta: { stop_reason: 'end_turn', stop_sequence: null }, usage });
      const chunks = [...anthropicStart({ inputTokens: 12 }), ...anthropicTextBlock(0, ['ok']), delta, anthropicEvent('message_stop', {})];
      expect(responseOf(await run({ kind: 'stream', chunks })).usage).toEqual({ inputTokens: 140, outputTokens: 9, cacheReadTokens: 100, cacheWriteTokens: 0 });
    });

    it.each([
      ['end_turn', 'end_turn'],
      ['stop_sequence', 'end_turn'],
      ['max_tokens', 'max_tokens'],
      ['refusal', 'content_filter'],
      ['pause_turn', 'other'],
    ] as const)('reports stop reason %s as %s', async (wire, stopReason) => {
      expect(responseOf(await run(anthropicText('ok', { stopReason: wire }))).stopReason).toBe(stopReason);
    });

    it('keeps thinking blocks, pings and unknown events out of the answer, telling only that the model reasons', async () => {
      const thinking = [
        anthropicEvent('content_block_start', { index: 0, content_block: { type: 'thinking', thinking: '' } }),
        anthropicEvent('content_block_delta', { index: 0, delta: { type: 'thinking_delta', thinking: 'secret plan' } }),
        anthropicEvent('content_block_delta', { index: 0, delta: { type: 'signature_delta', signature: 'c2ln' } }),
        anthropicEvent('content_block_stop', { index: 0 }),
        anthropicEvent('ping', {}),
        anthropicEvent('something_new', { index: 7, delta: { type: 'text_delta', text: 'not this' } }),
      ];
      const events = await run({ kind: 'stream', chunks: [...anthropicStart(), ...thinking, ...anthropicTextBlock(1, ['Answer']), ...anthropicFinish('end_turn')] });
      expect(events.filter((e) => e.type !== 'done')).toEqual([{ type: 'reasoning_delta' }, { type: 'text_delta', text: 'Answer' }]);
      expect(responseOf(events).content).toEqual([{ type: 'text', text: 'Answer' }]);
    });
  });

  describe('the request', () => {
    it('posts to /v1/messages with the key, the API version, the system prompt and alternating roles', async () => {
      const request: GenerateRequest = {
        system: 'You are Holdfast.',
        messages: [
          { role: 'system', content: [{ type: 'text', text: 'Be brief.' }] },
          { role: 'user', content: [{ type: 'text', text: 'What is this?' }] },
          { role: 'user', content: [{ type: 'image', mediaType: 'image/png', source: { kind: 'base64', data: 'iVBORw0KGgo=' } }] },
          {
            role: 'assistant',
            content: [
              { type: 'text', text: 'Let me look.' },
              { type: 'tool_use', id: 'toolu_1', name: 'lookup', input: { q: 'cat' } },
            ],
          },
          { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_2', name: 'lookup', input: { q: 'stale' }, malformedInput: { raw: '{"q":', reason: 'not JSON' } }] },
          { role: 'user', content: [{ type: 'text', text: 'Hurry, please.' }] },
          {
            role: 'tool',
            content: [
              { type: 'tool_result', toolUseId: 'toolu_1', content: 'a cat', isError: false },
              { type: 'tool_result', toolUseId: 'toolu_2', content: 'the arguments were not JSON', isError: true },
            ],
          },
          { role: 'system', content: [{ type: 'text', text: 'The user is waiting.' }] },
          { role: 'assistant', content: [{ type: 'text', text: '' }] },
        ],
      };
      await run(anthropicText('ok'), request);

      const received = fake.requests.at(-1);
      expect(received).toMatchObject({ method: 'POST', path: '/v1/messages' });
      expect(received?.headers).toMatchObject({ 'x-api-key': 'sk-test-key', 'anthropic-version': '2023-06-01', 'content-type': 'application/json' });
      expect(received?.body).toEqual({
        model: 'test-model',
        max_tokens: 256,
        system: 'You are Holdfast.\n\nBe brief.',
        stream: true,
        messages: [
          {
            role: 'user',
            content: [
              { type: 'text', text: 'What is this?' },
              { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' } },
            ],
          },
          {
            role: 'assistant',
            content: [
              { type: 'text', text: 'Let me look.' },
              { type: 'tool_use', id: 'toolu_1', name: 'lookup', input: { q: 'cat' } },
              { type: 'tool_use', id: 'toolu_2', name: 'lookup', input: {} },
            ],
          },
          {
            role: 'user',
            content: [
              { type: 'tool_result', tool_use_id: 'toolu_1', content: 'a cat', is_error: false },
              { type: 'tool_result', tool_use_id: 'toolu_2', content: 'the arguments were not JSON', is_error: true },
              { type: 'text', text: 'Hurry, please.' },
              { type: 'text', text: 'The user is waiting.' },
            ],
          },
        ],
      });
    });

    it('sends tools with input_schema, tool_choice none, and the per-request max_tokens and temperature', async () => {
      const inputSchema = { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] };
      await run(anthropicText('ok'), { ...HI, tools: [{ name: 'lookup', description: 'Look a thing up', inputSchema }], toolChoice: 'none', maxTokens: 1000, temperature: 0.2 });
      expect(lastBody()).toMatchObject({
        max_tokens: 1000,
        temperature: 0.2,
        tools: [{ name: 'lookup', description: 'Look a thing up', input_schema: inputSchema }],
        tool_choice: { type: 'none' },
      });
    });

    it('leaves another provider’s reasoning out of what it sends', async () => {
      fake.enqueue(anthropicText('ok'));
      const assistant: GenerateRequest['messages'][number] = {
        role: 'assistant',
        content: [
          { type: 'reasoning', encryptedContent: 'enc', summary: ['think'] },
          { type: 'text', text: 'Hello.' },
        ],
      };
      await collectResponse(provider().stream({ messages: [...HI.messages, assistant, ...HI.messages] }, { signal: new AbortController().signal }));
      expect((lastBody() as { messages: unknown[] }).messages).toEqual([
        { role: 'user', content: [{ type: 'text', text: 'hi' }] },
        { role: 'assistant', content: [{ type: 'text', text: 'Hello.' }] },
        { role: 'user', content: [{ type: 'text', text: 'hi' }] },
      ]);
    });

    it('leaves out the key, system, temperature, tools and tool_choice when there are none', async () => {
      fake.enqueue(anthropicText('ok'));
      await collectResponse(testProvider(llmConfig('anthropic', fake.baseUrl, { api_key: undefined })).stream({ ...HI, toolChoice: 'none' }, { signal: new AbortController().signal }));
      expect(fake.requests.at(-1)?.headers).not.toHaveProperty('x-api-key');
      expect(Object.keys(lastBody() as object).sort()).toEqual(['max_tokens', 'messages', 'model', 'stream']);
    });

    it('refuses an image still held as a blob reference before sending anything', async () => {
      const request: GenerateRequest = { messages: [{ role: 'user', content: [{ type: 'image', mediaType: 'image/png', source: { kind: 'blob', ref: 'blob-1' } }] }] };
      const error = await failure([], request);
      expect(isLLMErrorOfKind(error, 'request')).toBe(true);
      expect(error).toMatchObject({ code: 'unresolved_blob', provider: 'anthropic', model: 'test-model' });
      expect(fake.requests).toHaveLength(0);
    });
  });

  describe('tool calls', () => {
    it('assembles tool_use blocks whose input_json_delta fragments arrive in separate chunks', async () => {
      const calls = [
        { id: 'toolu_a', name: 'lookup', args: '{"q":"cats","limit":3}' },
        { id: 'toolu_b', name: 'remember', args: '{"note":"likes cats"}' },
      ];
      const events = await run(anthropicToolUse(calls, { text: 'Looking.', fragment: 4 }));
      expect(events.filter((event) => event.type !== 'done')).toEqual([
        { type: 'text_delta', text: 'Looking.' },
        { type: 'tool_call_started', id: 'toolu_a', name: 'lookup' },
        { type: 'tool_call_started', id: 'toolu_b', name: 'remember' },
      ]);
      expect(responseOf(events)).toMatchObject({
        stopReason: 'tool_use',
        content: [
          { type: 'text', text: 'Looking.' },
          { type: 'tool_use', id: 'toolu_a', name: 'lookup', input: { q: 'cats', limit: 3 } },
          { type: 'tool_use', id: 'toolu_b', name: 'remember', input: { note: 'likes cats' } },
        ],
      });
    });

    it('makes tool calls of tool_use blocks only: a server_tool_use block and its input_json_delta fragments are not a call', async () => {
      const serverTool = [
        anthropicEvent('content_block_start', { index: 0, content_block: { type: 'server_tool_use', id: 'srvtoolu_1', name: 'web_search', input: {} } }),
        anthropicEvent('content_block_delta', { index: 0, delta: { type: 'input_json_delta', partial_json: '{"query":' } }),
        anthropicEvent('content_block_delta', { index: 0, delta: { type: 'input_json_delta', partial_json: '"cats"}' } }),
        anthropicEvent('content_block_stop', { index: 0 }),
        anthropicEvent('content_block_start', { index: 1, content_block: { type: 'web_search_tool_result', tool_use_id: 'srvtoolu_1', content: [] } }),
        anthropicEvent('content_block_stop', { index: 1 }),
      ];
      const call = { id: 'toolu_a', name: 'lookup', args: '{"q":"cats"}' };
      const events = await run({ kind: 'stream', chunks: [...anthropicStart(), ...serverTool, ...anthropicToolUseBlock(2, call, 4), ...anthropicFinish('tool_use')] });
      expect(events.filter((event) => event.type !== 'done')).toEqual([{ type: 'tool_call_started', id: 'toolu_a', name: 'lookup' }]);
      expect(responseOf(events)).toMatchObject({ stopReason: 'tool_use', content: [{ type: 'tool_use', id: 'toolu_a', name: 'lookup', input: { q: 'cats' } }] });
      expect(toolUses(responseOf(events))).toHaveLength(1);
    });

    it('keeps malformed input JSON as that call’s malformedInput with an empty input', async () => {
      const calls = [
        { id: 'toolu_ok', name: 'lookup', args: '{"q":"x"}' },
        { id: 'toolu_bad', name: 'lookup', args: '{"q": "unterminated' },
      ];
      const events = await run(anthropicToolUse(calls, { fragment: 3 }));
      const [good, bad] = toolUses(responseOf(events));
      expect(good).toEqual({ type: 'tool_use', id: 'toolu_ok', name: 'lookup', input: { q: 'x' } });
      expect(bad).toMatchObject({ id: 'toolu_bad', input: {}, malformedInput: { raw: '{"q": "unterminated' } });
    });
  });

  describe('errors', () => {
    it('makes HTTP 529 overloaded_error a capacity error with status 529', async () => {
      const error = await failure([anthropicErrorReply(529, 'overloaded_error', 'Overloaded')]);
      expect(isLLMErrorOfKind(error, 'capacity')).toBe(true);
      expect(error).toMatchObject({ status: 529, code: 'overloaded_error', provider: 'anthropic', model: 'test-model' });
    });

    it('makes an overloaded_error event after some text a capacity error, after the text was streamed', async () => {
      fake.enqueue({ kind: 'stream', chunks: [...anthropicStart(), ...anthropicTextBlock(0, ['Partial answer']), anthropicError('overloaded_error', 'Overloaded')] });
      const seen: StreamEvent[] = [];
      const error = await (async () => {
        for await (const event of provider().stream(HI, { signal: new AbortController().signal })) seen.push(event);
      })().then(
        () => undefined,
        (thrown: unknown) => thrown,
      );
      expect(seen).toEqual([{ type: 'text_delta', text: 'Partial answer' }]);
      expect(isLLMErrorOfKind(error, 'capacity')).toBe(true);
      expect(error).toMatchObject({ code: 'overloaded_error', status: undefined });
    });

    it('throws an error sent as a bare JSON line inside the stream', async () => {
      const line = `${JSON.stringify({ type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } })}\n`;
      const error = await failure([{ kind: 'stream', chunks: [...anthropicStart(), line] }]);
      expect(isLLMErrorOfKind(error, 'capacity')).toBe(true);
    });

    it('makes an error event whose data is not JSON a transport error that keeps the text', async () => {
      const error = await failure([{ kind: 'stream', chunks: [...anthropicStart(), 'event: error\ndata: upstream exploded\n\n'] }]);
      expect(isLLMErrorOfKind(error, 'transport')).toBe(true);
      expect(error).toMatchObject({ message: expect.stringContaining('upstream exploded') as unknown });
    });

    it('fails with a retryable transport error on a frame that is not JSON, instead of answering with a hole in the text', async () => {
      const broken = 'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"hel\n\n';
      const text = anthropicTextBlock(0, ['lo']);
      const error = await failure([{ kind: 'stream', chunks: [...anthropicStart(), text[0]!, broken, ...text.slice(1), ...anthropicFinish('end_turn')] }]);
      expect(error).toMatchObject({ kind: 'transport', code: 'malformed_frame', isRetryable: true, provider: 'anthropic' });
    });

    const TABLE: readonly (readonly [type: string, status: number, kind: LLMErrorKind, extra: { quota?: boolean }])[] = [
      ['invalid_request_error', 400, 'request', {}],
      ['authentication_error', 401, 'auth', {}],
      ['permission_error', 403, 'auth', {}],
      ['not_found_error', 404, 'request', {}],
      ['request_too_large', 413, 'request', {}],
      ['rate_limit_error', 429, 'rate_limit', { quota: false }],
      ['timeout_error', 504, 'transport', {}],
      ['overloaded_error', 529, 'capacity', {}],
      ['api_error', 500, 'transport', {}],
      ['billing_error', 402, 'rate_limit', { quota: true }],
    ];

    it.each(TABLE)('maps %s in the stream to a %s error', async (type, _status, kind, extra) => {
      const error = await failure([{ kind: 'stream', chunks: [...anthropicStart(), anthropicError(type, `${type} happened`)] }]);
      expect(isLLMErrorOfKind(error, kind)).toBe(true);
      expect(error).toMatchObject({ provider: 'anthropic', model: 'test-model', code: type, ...extra });
    });

    it.each(TABLE)('maps %s as HTTP %i to a %s error', async (type, status, kind, extra) => {
      const error = await failure([anthropicErrorReply(status, type, `${type} happened`)]);
      expect(isLLMErrorOfKind(error, kind)).toBe(true);
      expect(error).toMatchObject({ provider: 'anthropic', model: 'test-model', code: type, status, ...extra });
    });

    it('makes a stream that ends without message_stop a truncated-stream transport error', async () => {
      const error = await failure([anthropicText('Hello', { then: 'truncate' })]);
      expect(isLLMErrorOfKind(error, 'transport')).toBe(true);
      expect(error).toMatchObject({ code: 'stream_truncated' });
    });
  });

  it('aborts mid-stream as an AbortError, not an LLMError, and closes the connection', async () => {
    fake.enqueue(anthropicText('Hello', { then: 'stall' }));
    const controller = new AbortController();
    const seen: StreamEvent[] = [];
    const result = (async () => {
      for await (const event of provider().stream(HI, { signal: controller.signal })) {
        seen.push(event);
        if (event.type === 'text_delta') controller.abort();
      }
    })().then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    const error = await result;
    expect(seen).toEqual([{ type: 'text_delta', text: 'Hello' }]);
    expect(error).toMatchObject({ name: 'AbortError' });
    expect(isLLMError(error)).toBe(false);
    await fake.whenClientClosed();
  });
});
