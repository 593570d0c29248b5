import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isLLMError, isLLMErrorOfKind, type LLMErrorKind } from '../../src/llm/errors.js';
import type { GenerateRequest } from '../../src/llm/protocol.js';
import { collectResponse, type LLMProvider, type StreamEvent } from '../../src/llm/provider.js';
import { RESPONSES_ID, RESPONSES_MODEL, responsesCompleted, responsesCreated, responsesEvent, responsesStream, responsesText, responsesToolCalls } from '../support/fake_llm/openai_responses.js';
import { llmConfig, testProvider } from '../support/fake_llm/provider.js';
import { FakeLLMServer, sse } from '../support/fake_llm/server.js';

const HELLO: GenerateRequest = { messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }] };

let fake: FakeLLMServer;
let provider: LLMProvider;

beforeEach(async () => {
  fake = await FakeLLMServer.start();
  provider = testProvider(llmConfig('openai-responses', fake.baseUrl));
});

afterEach(async () => {
  await fake.close();
});

async function collectEvents(request: GenerateRequest = HELLO): Promise<StreamEvent[]> {
  const events: StreamEvent[] = [];
  for await (const event of provider.stream(request, { signal: new AbortController().signal })) events.push(event);
  return events;
}

/** What one generation rejects with; fails the test when it succeeds. */
async function failureOf(request: GenerateRequest = HELLO): Promise<unknown> {
  try {
    await collectResponse(provider.stream(request, { signal: new AbortController().signal }));
  } catch (error) {
    return error;
  }
  throw new Error('expected the generation to fail');
}

describe('openai-responses: streaming text', () => {
  it('yields text deltas as they arrive and collects them into one text block with usage and provenance', async () => {
    fake.enqueue(responsesText('Hello, world', { chunks: 3, inputTokens: 21, outputTokens: 4 }));
    const events = await collectEvents();
    expect(events.filter((event) => event.type === 'text_delta')).toEqual([
      { type: 'text_delta', text: 'Hell' },
      { type: 'text_delta', text: 'o, w' },
      { type: 'text_delta', text: 'orld' },
    ]);
    expect(events.at(-1)).toEqual({
      type: 'done',
      response: {
        content: [{ type: 'text', text: 'Hello, world' }],
        stopReason: 'end_turn',
        usage: { inputTokens: 21, outputTokens: 4 },
        provenance: { provider: 'openai-responses', model: RESPONSES_MODEL, responseId: RESPONSES_ID },
      },
    });
  });

  it('ends with max_tokens when the response is incomplete for max_output_tokens, keeping the text so far and no reasoning', async () => {
    fake.enqueue(
      responsesStream([
        responsesCreated(),
        responsesEvent('response.reasoning_text.delta', { delta: 'A fairy tale, then.' }),
        responsesEvent('response.reasoning_summary_text.delta', {}),
        responsesEvent('response.output_text.delta', { delta: 'Once upon' }),
        responsesEvent('response.incomplete', { response: { id: RESPONSES_ID, model: RESPONSES_MODEL, status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' } } }),
      ]),
    );
    const response = await collectResponse(provider.stream(HELLO, { signal: new AbortController().signal }));
    expect(response.stopReason).toBe('max_tokens');
    expect(response.content).toEqual([{ type: 'text', text: 'Once upon' }]);
  });

  it('ends with content_filter when the response is incomplete for content_filter', async () => {
    fake.enqueue(responsesStream([responsesCreated(), responsesEvent('response.incomplete', { response: { incomplete_details: { reason: 'content_filter' } } })]));
    const response = await collectResponse(provider.stream(HELLO, { signal: new AbortController().signal }));
    expect(response.stopReason).toBe('content_filter');
  });

  it('ends with other when the response is incomplete for a reason it does not name', async () => {
    fake.enqueue(
      responsesStream([
        responsesCreated(),
        responsesEvent('response.output_text.delta', { delta: 'Once' }),
        responsesEvent('response.incomplete', { response: { incomplete_details: { reason: 'interrupted' } } }),
      ]),
    );
    const response = await collectResponse(provider.stream(HELLO, { signal: new AbortController().signal }));
    expect(response.stopReason).toBe('other');
    expect(response.content).toEqual([{ type: 'text', text: 'Once' }]);
  });

  it('passes over events it does not know and frames naming no event, keeping the text around them', async () => {
    fake.enqueue(
      responsesStream([
        responsesCreated(),
        responsesEvent('response.output_text.delta', { delta: 'Hel' }),
        responsesEvent('response.content_part.added', { part: { type: 'output_text', text: '' } }),
        sse({ delta: 'ignored' }),
        responsesEvent('response.output_text.delta', {}),
        responsesEvent('response.output_text.delta', { delta: 'lo' }),
        responsesCompleted(),
      ]),
    );
    const response = await collectResponse(provider.stream(HELLO, { signal: new AbortController().signal }));
    expect(response.content).toEqual([{ type: 'text', text: 'Hello' }]);
    expect(response.stopReason).toBe('end_turn');
  });

  it('fails with a stream_truncated transport error when the stream ends without response.completed', async () => {
    fake.enqueue(responsesStream([responsesCreated(), responsesEvent('response.output_text.delta', { delta: 'Half a sen' })]));
    const error = await failureOf();
    expect(isLLMErrorOfKind(error, 'transport') && error.code).toBe('stream_truncated');
  });

  it('fails with a retryable transport error on a frame that is not JSON, instead of answering with a hole in the text', async () => {
    const broken = 'event: response.output_text.delta\ndata: {"type":"response.output_text.delta","delta":"hel\n\n';
    fake.enqueue(responsesStream([responsesCreated(), broken, responsesEvent('response.output_text.delta', { delta: 'lo' }), responsesCompleted()]));
    expect(await failureOf()).toMatchObject({ kind: 'transport', code: 'malformed_frame', isRetryable: true, provider: 'openai-responses' });
  });
});

describe('openai-responses: the request', () => {
  it('posts the conversation to /responses as input items, with tools, instructions and limits', async () => {
    fake.enqueue(responsesText('ok'));
    await collectEvents({
      system: 'You are terse.',
      messages: [
        { role: 'system', content: [{ type: 'text', text: 'Channel rules apply.' }] },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'What is this?' },
            { type: 'image', mediaType: 'image/png', source: { kind: 'base64', data: 'iVBORw0K' } },
          ],
        },
        {
          role: 'assistant',
          content: [
            { type: 'text', text: 'Let me look.' },
            { type: 'tool_use', id: 'call_a', name: 'lookup', input: { q: 'png' } },
            { type: 'tool_use', id: 'call_b', name: 'lookup', input: {}, malformedInput: { raw: '{"q":', reason: 'not JSON' } },
          ],
        },
        { role: 'tool', content: [{ type: 'tool_result', toolUseId: 'call_a', content: 'a PNG header', isError: false }] },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'and the other?' },
            { type: 'tool_result', toolUseId: 'call_b', content: 'bad arguments', isError: true },
          ],
        },
      ],
      tools: [{ name: 'lookup', description: 'Looks things up', inputSchema: { type: 'object', properties: { q: { type: 'string' } } } }],
      toolChoice: 'none',
      maxTokens: 100,
      temperature: 0.3,
    });
    const [request] = fake.requests;
    expect(request?.method).toBe('POST');
    expect(request?.path).toBe('/v1/responses');
    expect(request?.headers['authorization']).toBe('Bearer sk-test-key');
    expect(request?.headers['content-type']).toBe('application/json');
    expect(request?.body).toEqual({
      model: 'test-model',
      instructions: 'You are terse.',
      input: [
        { role: 'system', content: [{ type: 'input_text', text: 'Channel rules apply.' }] },
        {
          role: 'user',
          content: [
            { type: 'input_text', text: 'What is this?' },
            { type: 'input_image', image_url: 'data:image/png;base64,iVBORw0K' },
          ],
        },
        { role: 'assistant', content: [{ type: 'output_text', text: 'Let me look.' }] },
        { type: 'function_call', call_id: 'call_a', name: 'lookup', arguments: '{"q":"png"}' },
        { type: 'function_call', call_id: 'call_b', name: 'lookup', arguments: '{"q":' },
        { type: 'function_call_output', call_id: 'call_a', output: 'a PNG header' },
        { type: 'function_call_output', call_id: 'call_b', output: 'Error: bad arguments' },
        { role: 'user', content: [{ type: 'input_text', text: 'and the other?' }] },
      ],
      stream: true,
      store: false,
      include: ['reasoning.encrypted_content'],
      max_output_tokens: 100,
      temperature: 0.3,
      tools: [{ type: 'function', name: 'lookup', description: 'Looks things up', parameters: { type: 'object', properties: { q: { type: 'string' } } } }],
      tool_choice: 'none',
    });
  });

  it('sends the configured max_tokens and headers, and no key, tools or instructions it was not given', async () => {
    provider = testProvider(llmConfig('openai-responses', fake.baseUrl, { api_key: undefined, max_tokens: 512, headers: { 'x-team': 'holdfast' } }));
    fake.enqueue(responsesText('ok'));
    await collectEvents();
    const [request] = fake.requests;
    expect(request?.headers['authorization']).toBeUndefined();
    expect(request?.headers['x-team']).toBe('holdfast');
    expect(request?.body).toEqual({
      model: 'test-model',
      input: [{ role: 'user', content: [{ type: 'input_text', text: 'hi' }] }],
      stream: true,
      store: false,
      include: ['reasoning.encrypted_content'],
      max_output_tokens: 512,
    });
  });

  it('refuses an image that is still a blob reference, without sending anything', async () => {
    const error = await failureOf({
      messages: [{ role: 'user', content: [{ type: 'image', mediaType: 'image/jpeg', source: { kind: 'blob', ref: 'blob:1234' } }] }],
    });
    expect(isLLMErrorOfKind(error, 'request') && error.code).toBe('unresolved_blob');
    expect(fake.requests).toHaveLength(0);
  });

  it('sends an assistant message’s adjacent texts as one message, a text after a call as another, and leaves out what a model cannot send', async () => {
    fake.enqueue(responsesText('ok'));
    await collectEvents({
      messages: [
        { role: 'system', content: [{ type: 'image', mediaType: 'image/png', source: { kind: 'base64', data: 'iVBORw0K' } }] },
        { role: 'user', content: [{ type: 'text', text: 'hi' }] },
        {
          role: 'assistant',
          content: [
            { type: 'text', text: 'One.' },
            { type: 'text', text: 'Two.' },
            { type: 'image', mediaType: 'image/png', source: { kind: 'base64', data: 'iVBORw0K' } },
            { type: 'tool_use', id: 'call_a', name: 'lookup', input: {} },
            { type: 'tool_result', toolUseId: 'call_z', content: 'stray', isError: false },
            { type: 'text', text: 'After.' },
          ],
        },
        { role: 'tool', content: [{ type: 'tool_result', toolUseId: 'call_a', content: 'found', isError: false }] },
      ],
    });
    expect((fake.requests[0]?.body as { input: unknown[] }).input).toEqual([
      { role: 'user', content: [{ type: 'input_text', text: 'hi' }] },
      {
        role: 'assistant',
        content: [
          { type: 'output_text', text: 'One.' },
          { type: 'output_text', text: 'Two.' },
        ],
      },
      { type: 'function_call', call_id: 'call_a', name: 'lookup', arguments: '{}' },
      { role: 'assistant', content: [{ type: 'output_text', text: 'After.' }] },
      { type: 'function_call_output', call_id: 'call_a', output: 'found' },
    ]);
  });
});

describe('openai-responses: tool calls', () => {
  it('assembles several calls whose arguments arrive in fragments into tool_use blocks, in order', async () => {
    fake.enqueue(
      responsesToolCalls(
        [
          { callId: 'call_weather', name: 'weather', args: '{"city":"Oslo","unit":"C"}' },
          { callId: 'call_time', name: 'time', args: '{"zone":"Europe/Oslo"}' },
        ],
        { fragment: 5 },
      ),
    );
    const events = await collectEvents();
    expect(events.filter((event) => event.type === 'tool_call_started')).toEqual([
      { type: 'tool_call_started', id: 'call_weather', name: 'weather' },
      { type: 'tool_call_started', id: 'call_time', name: 'time' },
    ]);
    const done = events.at(-1);
    expect(done?.type === 'done' && done.response).toMatchObject({
      stopReason: 'tool_use',
      content: [
        { type: 'tool_use', id: 'call_weather', name: 'weather', input: { city: 'Oslo', unit: 'C' } },
        { type: 'tool_use', id: 'call_time', name: 'time', input: { zone: 'Europe/Oslo' } },
      ],
    });
  });

  it('keeps the model’s encrypted reasoning in its place before the call, and sends it back so, without its id', async () => {
    fake.enqueue(responsesToolCalls([{ callId: 'call_w', name: 'weather', args: '{"city":"Oslo"}' }], { reasoning: { encryptedContent: 'enc-1', summary: ['Check the weather.', 'In Oslo.'] } }));
    const response = await collectResponse(provider.stream(HELLO, { signal: new AbortController().signal }));
    expect(response.content).toEqual([
      { type: 'reasoning', encryptedContent: 'enc-1', summary: ['Check the weather.', 'In Oslo.'] },
      { type: 'tool_use', id: 'call_w', name: 'weather', input: { city: 'Oslo' } },
    ]);
    expect(response.stopReason).toBe('tool_use');

    fake.enqueue(responsesText('Sunny.'));
    await collectEvents({
      messages: [...HELLO.messages, { role: 'assistant', content: response.content }, { role: 'tool', content: [{ type: 'tool_result', toolUseId: 'call_w', content: 'sunny', isError: false }] }],
    });
    expect((fake.requests[1]?.body as { input: unknown[] }).input).toEqual([
      { role: 'user', content: [{ type: 'input_text', text: 'hi' }] },
      {
        type: 'reasoning',
        encrypted_content: 'enc-1',
        summary: [
          { type: 'summary_text', text: 'Check the weather.' },
          { type: 'summary_text', text: 'In Oslo.' },
        ],
      },
      { type: 'function_call', call_id: 'call_w', name: 'weather', arguments: '{"city":"Oslo"}' },
      { type: 'function_call_output', call_id: 'call_w', output: 'sunny' },
    ]);
  });

  it('takes the arguments whole from .done when no deltas streamed, and decides by the event name when data has no type', async () => {
    fake.enqueue(
      responsesStream([
        responsesCreated(),
        sse({ output_index: 0, item: { type: 'function_call', id: 'fc_1', call_id: 'call_say', name: 'say', arguments: '' } }, 'response.output_item.added'),
        sse({ output_index: 0, item_id: 'fc_1', arguments: '{"text":"hi"}' }, 'response.function_call_arguments.done'),
        responsesCompleted(),
      ]),
    );
    const response = await collectResponse(provider.stream(HELLO, { signal: new AbortController().signal }));
    expect(response.content).toEqual([{ type: 'tool_use', id: 'call_say', name: 'say', input: { text: 'hi' } }]);
  });

  it('keeps malformed argument JSON as that call’s malformedInput with an empty input', async () => {
    fake.enqueue(
      responsesToolCalls([
        { callId: 'call_ok', name: 'weather', args: '{"city":"Oslo"}' },
        { callId: 'call_bad', name: 'weather', args: '{"city": "Os' },
      ]),
    );
    const response = await collectResponse(provider.stream(HELLO, { signal: new AbortController().signal }));
    expect(response.stopReason).toBe('tool_use');
    expect(response.content[0]).toEqual({ type: 'tool_use', id: 'call_ok', name: 'weather', input: { city: 'Oslo' } });
    expect(response.content[1]).toMatchObject({ type: 'tool_use', id: 'call_bad', name: 'weather', input: {}, malformedInput: { raw: '{"city": "Os' } });
  });

  it('names calls by their output index when the items carry no id, and keeps a reasoning item that has no summary', async () => {
    fake.enqueue(
      responsesStream([
        responsesCreated(),
        responsesEvent('response.output_item.done', { item: { type: 'reasoning', encrypted_content: 'enc-2' } }),
        responsesEvent('response.output_item.added', { item: { type: 'function_call', call_id: 'call_first', name: 'weather', arguments: '' } }),
        responsesEvent('response.output_item.added', { output_index: 2, item: { type: 'function_call', call_id: 'call_second', name: 'time', arguments: '' } }),
        responsesEvent('response.function_call_arguments.delta', { output_index: 2, delta: '{"zone":' }),
        responsesEvent('response.function_call_arguments.delta', { delta: '{"city":"Oslo"}' }),
        responsesEvent('response.function_call_arguments.delta', { output_index: 2, delta: '"UTC"}' }),
        responsesEvent('response.function_call_arguments.done', { output_index: 2 }),
        responsesEvent('response.function_call_arguments.done', { output_index: 7, arguments: '{"never":"started"}' }),
        responsesCompleted(),
      ]),
    );
    const response = await collectResponse(provider.stream(HELLO, { signal: new AbortController().signal }));
    expect(response.content).toEqual([
      { type: 'reasoning', encryptedContent: 'enc-2', summary: [] },
      { type: 'tool_use', id: 'call_first', name: 'weather', input: { city: 'Oslo' } },
      { type: 'tool_use', id: 'call_second', name: 'time', input: { zone: 'UTC' } },
    ]);
    expect(response.stopReason).toBe('tool_use');
  });
});

describe('openai-responses: errors inside the stream', () => {
  const overloaded = { type: 'service_unavailable_error', code: 'server_is_overloaded', message: 'The server is overloaded' };

  it.each<[string, string, LLMErrorKind, string]>([
    ['a nested error event', responsesEvent('error', { error: overloaded }), 'capacity', 'server_is_overloaded'],
    ['a flat error event', responsesEvent('error', { code: 'server_is_overloaded', message: 'busy' }), 'capacity', 'server_is_overloaded'],
    ['response.failed with server_error', responsesEvent('response.failed', { response: { status: 'failed', error: { code: 'server_error', message: 'oops' } } }), 'capacity', 'server_error'],
    ['response.failed with invalid_prompt', responsesEvent('response.failed', { response: { status: 'failed', error: { code: 'invalid_prompt', message: 'flagged' } } }), 'request', 'invalid_prompt'],
    ['response.failed without an error object', responsesEvent('response.failed', { response: { status: 'failed', error: null } }), 'transport', 'response_failed'],
    ['a bare JSON error line', `${JSON.stringify({ error: overloaded })}\n`, 'capacity', 'server_is_overloaded'],
  ])('%s fails with a %s error (%s)', async (_name, frame, kind, code) => {
    fake.enqueue(responsesStream([responsesCreated(), frame, responsesCompleted()]));
    const error = await failureOf();
    expect(isLLMError(error) && { kind: error.kind, code: error.code, provider: error.provider }).toEqual({ kind, code, provider: 'openai-responses' });
  });

  it('fails with a transport error on an error event that carries no error fields', async () => {
    fake.enqueue(responsesStream([responsesCreated(), responsesEvent('error'), responsesCompleted()]));
    expect(await failureOf()).toMatchObject({ kind: 'transport', provider: 'openai-responses', model: 'test-model' });
  });

  it('tells a rate limit from an exhausted quota', async () => {
    fake.enqueue(
      responsesStream([responsesEvent('error', { code: 'rate_limit_exceeded', message: 'slow down' })]),
      responsesStream([responsesEvent('error', { code: 'insufficient_quota', message: 'no credit' })]),
    );
    const limited = await failureOf();
    const broke = await failureOf();
    expect(isLLMErrorOfKind(limited, 'rate_limit') && limited.quota).toBe(false);
    expect(isLLMErrorOfKind(broke, 'rate_limit') && broke.quota).toBe(true);
  });

  it('yields the text that came before the error, then fails', async () => {
    fake.enqueue(responsesStream([responsesCreated(), responsesEvent('response.output_text.delta', { delta: 'Par' }), responsesEvent('error', { error: overloaded })]));
    const seen: StreamEvent[] = [];
    const error = await (async () => {
      try {
        for await (const event of provider.stream(HELLO, { signal: new AbortController().signal })) seen.push(event);
      } catch (caught) {
        return caught;
      }
      return undefined;
    })();
    expect(seen).toEqual([{ type: 'text_delta', text: 'Par' }]);
    expect(isLLMErrorOfKind(error, 'capacity')).toBe(true);
  });
});

describe('openai-responses: aborting', () => {
  it('rejects with the AbortError, not an LLMError, and closes the connection', async () => {
    fake.enqueue(responsesStream([responsesCreated(), responsesEvent('response.output_text.delta', { delta: 'Thinking' })], 'stall'));
    const controller = new AbortController();
    const events = provider.stream(HELLO, { signal: controller.signal })[Symbol.asyncIterator]();
    expect(await events.next()).toEqual({ done: false, value: { type: 'text_delta', text: 'Thinking' } });
    controller.abort();
    const error = await events.next().then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).name).toBe('AbortError');
    expect(isLLMError(error)).toBe(false);
    await fake.whenClientClosed();
    expect(fake.requests[0]?.closedByClient).toBe(true);
  });
});
