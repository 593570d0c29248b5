import { NO_TRACER } from '../../src/core/tracing.js';
import { TurnTrace } from '../../src/engine/turn_trace.js';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import type { ChatTurn } from '../../src/engine/chat_turn.js';
import { CODEC_VERSION, PAYLOAD_FIELDS, TURN_FIELD_CENSUS } from '../../src/engine/turn_census.js';
import {
  InvalidCheckpointError,
  decodeCheckpointState,
  encodeCheckpointState,
  isInvalidCheckpointError,
  restoreChatTurn,
  validateTranscript,
  type ReconstructedParts,
} from '../../src/engine/turn_codec.js';
import type { Message } from '../../src/llm/protocol.js';
import type { Tool } from '../../src/tools/tool.js';

const lookup: Tool = {
  name: 'lookup',
  description: 'Looks a word up.',
  inputSchema: { type: 'object' },
  effect: 'read',
  timeoutMs: 1_000,
  execute: () => Promise.resolve({ kind: 'result', text: 'found' }),
};

const user = (text: string): Message => ({ role: 'user', content: [{ type: 'text', text }] });
const reply = (text: string): Message => ({ role: 'assistant', content: [{ type: 'text', text }] });
const calls = (...ids: string[]): Message => ({
  role: 'assistant',
  content: [{ type: 'text', text: 'checking' }, ...ids.map((id) => ({ type: 'tool_use' as const, id, name: 'lookup', input: { word: id } }))],
});
const results = (...ids: string[]): Message => ({ role: 'tool', content: ids.map((id) => ({ type: 'tool_result' as const, toolUseId: id, content: 'ok', isError: false })) });

function freshParts(turnId = 'turn-1'): ReconstructedParts {
  return {
    turnId,
    identity: { source: 'console', channelId: 'c1', messageId: 'm1' },
    requester: { userId: 'u1', roleIds: ['r1'] },
    tools: [lookup],
    signal: new AbortController().signal,
    logger: pino({ level: 'silent' }),
    trace: TurnTrace.start(NO_TRACER, { identity: { source: 'console', channelId: 'c1', messageId: 'm1' }, requesterId: 'u1', startedBy: 'requester', turnId }),
  };
}

function liveTurn(): ChatTurn {
  return {
    ...freshParts(),
    systemPrompt: 'You are Holdfast.',
    transcript: [user('hi'), calls('a', 'b'), results('b', 'a'), reply('done')],
    iteration: 2,
    toolCallsUsed: 2,
    budgets: { maxIterations: 8, maxToolCalls: 12, maxContinuations: 2 },
    emptyTurnRetried: true,
    continuationsUsed: 1,
    finalAnswerRequested: false,
    repeatedCalls: { counts: { fp1: 3, fp2: 1 }, warned: ['fp1'] },
    recoveryDeadlineAt: 1_700_000_000_000,
    model: 'local-llama',
  };
}

/** A stored payload (as JSON brings it back) with one change applied to its fields. */
function storedPayload(change: (fields: Record<string, unknown>, root: Record<string, unknown>) => void = () => undefined): Record<string, unknown> {
  const root = JSON.parse(JSON.stringify(encodeCheckpointState(liveTurn()))) as Record<string, unknown>;
  change(root['fields'] as Record<string, unknown>, root);
  return root;
}

function problemsOf(payload: unknown): string[] {
  const decoded = decodeCheckpointState(payload);
  if (decoded.ok) throw new Error('expected the payload to be rejected');
  return decoded.problems;
}

const persistedNonLog = (): string[] =>
  Object.entries(TURN_FIELD_CENSUS)
    .filter(([, entry]) => entry.kind === 'persisted' && !('via' in entry))
    .map(([name]) => name)
    .sort();

describe('the census', () => {
  it('classifies exactly the fields a real ChatTurn has', () => {
    expect(Object.keys(TURN_FIELD_CENSUS).sort()).toEqual(Object.keys(liveTurn()).sort());
  });

  it('gives every reconstructed field a reason and persists only the transcript through the log', () => {
    for (const entry of Object.values(TURN_FIELD_CENSUS)) if (entry.kind === 'reconstructed') expect(entry.reason).toMatch(/\w{3}/);
    const viaLog = Object.entries(TURN_FIELD_CENSUS).filter(([, entry]) => 'via' in entry);
    expect(viaLog).toEqual([['transcript', { kind: 'persisted', via: 'transcript_log' }]]);
    const reconstructed = Object.entries(TURN_FIELD_CENSUS)
      .filter(([, entry]) => entry.kind === 'reconstructed')
      .map(([name]) => name);
    expect(reconstructed.sort()).toEqual(['identity', 'logger', 'requester', 'signal', 'tools', 'trace', 'turnId']);
  });

  it('is what the encoder writes: the persisted fields not kept in the transcript log', () => {
    expect([...PAYLOAD_FIELDS].sort()).toEqual(persistedNonLog());
    expect(Object.keys(encodeCheckpointState(liveTurn()).fields).sort()).toEqual(persistedNonLog());
  });
});

describe('encodeCheckpointState', () => {
  it('writes plain JSON, copied from the turn rather than shared with it', () => {
    const turn = liveTurn();
    const state = encodeCheckpointState(turn);
    expect(state.codecVersion).toBe(CODEC_VERSION);
    expect(JSON.parse(JSON.stringify(state))).toEqual(state);
    expect(state.fields.budgets).not.toBe(turn.budgets);
    expect(state.fields.repeatedCalls.counts).not.toBe(turn.repeatedCalls.counts);
    expect(state.fields.repeatedCalls.warned).not.toBe(turn.repeatedCalls.warned);
    expect(state.fields).toEqual({
      systemPrompt: 'You are Holdfast.',
      iteration: 2,
      toolCallsUsed: 2,
      budgets: { maxIterations: 8, maxToolCalls: 12, maxContinuations: 2 },
      emptyTurnRetried: true,
      continuationsUsed: 1,
      finalAnswerRequested: false,
      repeatedCalls: { counts: { fp1: 3, fp2: 1 }, warned: ['fp1'] },
      recoveryDeadlineAt: 1_700_000_000_000,
      model: 'local-llama',
    });
  });
});

describe('restoreChatTurn', () => {
  it('round-trips every persisted field through JSON and takes the fresh reconstructed parts', () => {
    const original = liveTurn();
    const payload: unknown = JSON.parse(JSON.stringify(encodeCheckpointState(original)));
    const transcript: unknown = JSON.parse(JSON.stringify(original.transcript));
    const parts = freshParts('turn-1');
    const restored = restoreChatTurn(payload, transcript, parts);
    for (const [name, entry] of Object.entries(TURN_FIELD_CENSUS) as [keyof ChatTurn, (typeof TURN_FIELD_CENSUS)[keyof ChatTurn]][]) {
      if (entry.kind === 'persisted') expect(restored[name], name).toEqual(original[name]);
      else expect(restored[name], name).toBe(parts[name as keyof ReconstructedParts]);
    }
    expect(restored.signal).not.toBe(original.signal);
    expect(Object.keys(restored).sort()).toEqual(Object.keys(original).sort());
  });

  it('gives the restored turn a transcript array of its own', () => {
    const transcript = [user('hi')];
    const restored = restoreChatTurn(storedPayload(), transcript, freshParts());
    restored.transcript.push(reply('hello'));
    expect(transcript).toHaveLength(1);
  });

  it('throws InvalidCheckpointError listing the problems of both the payload and the transcript', () => {
    const payload = storedPayload((fields) => (fields['emptyTurnRetried'] = 0));
    let thrown: unknown;
    try {
      restoreChatTurn(payload, [null], freshParts());
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(InvalidCheckpointError);
    expect(isInvalidCheckpointError(thrown)).toBe(true);
    expect((thrown as InvalidCheckpointError).problems).toEqual(['checkpoint.fields.emptyTurnRetried: must be a boolean, got 0', 'transcript[0]: must be an object, got null']);
    expect((thrown as Error).name).toBe('InvalidCheckpointError');
  });

  it('lists every problem but keeps its message short', () => {
    const transcript = Array.from({ length: 12 }, () => 42);
    const error = new InvalidCheckpointError(validateTranscript(transcript));
    expect(error.problems).toHaveLength(12);
    expect(error.message).toMatch(/transcript\[9\]: must be an object, got 42; and 2 more$/);
  });

  it('recognises its errors by marker only', () => {
    expect(isInvalidCheckpointError(new Error('invalid checkpoint'))).toBe(false);
    expect(isInvalidCheckpointError(null)).toBe(false);
    expect(isInvalidCheckpointError('InvalidCheckpointError')).toBe(false);
  });
});

describe('decodeCheckpointState rejects', () => {
  it.each([
    ['a guard flag as 0', (f: Record<string, unknown>) => (f['emptyTurnRetried'] = 0), 'checkpoint.fields.emptyTurnRetried: must be a boolean, got 0'],
    ['a guard flag as "false"', (f: Record<string, unknown>) => (f['finalAnswerRequested'] = 'false'), 'checkpoint.fields.finalAnswerRequested: must be a boolean, got "false"'],
    ['an unknown extra field', (f: Record<string, unknown>) => (f['hedgingRetried'] = false), 'checkpoint.fields.hedgingRetried: is not a known field'],
    ['a missing field', (f: Record<string, unknown>) => delete f['finalAnswerRequested'], 'checkpoint.fields.finalAnswerRequested: is missing'],
    ['a counter above its cap', (f: Record<string, unknown>) => (f['iteration'] = 9), 'checkpoint.fields.iteration: must not exceed checkpoint.fields.budgets.maxIterations (8), got 9'],
    ['a negative counter', (f: Record<string, unknown>) => (f['toolCallsUsed'] = -1), 'checkpoint.fields.toolCallsUsed: must be between 0 and 9007199254740991, got -1'],
    ['a float counter', (f: Record<string, unknown>) => (f['continuationsUsed'] = 1.5), 'checkpoint.fields.continuationsUsed: must be a safe integer, got 1.5'],
    ['a counter as a string', (f: Record<string, unknown>) => (f['iteration'] = '1'), 'checkpoint.fields.iteration: must be a safe integer, got "1"'],
    ['an unsafe integer counter', (f: Record<string, unknown>) => (f['iteration'] = 2 ** 53), 'checkpoint.fields.iteration: must be a safe integer, got 9007199254740992'],
    ['a bigint counter', (f: Record<string, unknown>) => (f['iteration'] = 1n), 'checkpoint.fields.iteration: must be a safe integer, got 1n'],
    [
      'a zero iteration cap',
      (f: Record<string, unknown>) => (f['budgets'] = { maxIterations: 0, maxToolCalls: 0, maxContinuations: 0 }),
      'checkpoint.fields.budgets.maxIterations: must be between 1 and 10000, got 0',
    ],
    [
      'an oversized cap',
      (f: Record<string, unknown>) => (f['budgets'] = { maxIterations: 8, maxToolCalls: 10_001, maxContinuations: 2 }),
      'checkpoint.fields.budgets.maxToolCalls: must be between 0 and 10000, got 10001',
    ],
    [
      'an extra budget',
      (f: Record<string, unknown>) => (f['budgets'] = { maxIterations: 8, maxToolCalls: 12, maxContinuations: 2, maxTokens: 5 }),
      'checkpoint.fields.budgets.maxTokens: is not a known field',
    ],
    ['budgets as an array', (f: Record<string, unknown>) => (f['budgets'] = [8, 12, 2]), 'checkpoint.fields.budgets: must be an object, got an array'],
    [
      'a warned entry missing from counts',
      (f: Record<string, unknown>) => (f['repeatedCalls'] = { counts: { fp1: 3 }, warned: ['fp1', 'fp9'] }),
      'checkpoint.fields.repeatedCalls.warned[1]: "fp9" has no entry in counts',
    ],
    [
      'a warned entry listed twice',
      (f: Record<string, unknown>) => (f['repeatedCalls'] = { counts: { fp1: 3 }, warned: ['fp1', 'fp1'] }),
      'checkpoint.fields.repeatedCalls.warned[1]: "fp1" is listed twice',
    ],
    [
      'a zero count',
      (f: Record<string, unknown>) => (f['repeatedCalls'] = { counts: { 'fp 1': 0 }, warned: [] }),
      'checkpoint.fields.repeatedCalls.counts["fp 1"]: must be between 1 and 9007199254740991, got 0',
    ],
    ['an empty fingerprint', (f: Record<string, unknown>) => (f['repeatedCalls'] = { counts: { '': 1 }, warned: [] }), 'checkpoint.fields.repeatedCalls.counts: a fingerprint must not be empty'],
    ['a deadline as a string', (f: Record<string, unknown>) => (f['recoveryDeadlineAt'] = '1700'), 'checkpoint.fields.recoveryDeadlineAt: must be null or a safe integer, got "1700"'],
    ['a negative deadline', (f: Record<string, unknown>) => (f['recoveryDeadlineAt'] = -5), 'checkpoint.fields.recoveryDeadlineAt: must be between 0 and 9007199254740991, got -5'],
    ['a model that is not a name', (f: Record<string, unknown>) => (f['model'] = 7), 'checkpoint.fields.model: must be a string, got 7'],
    ['an oversized system prompt', (f: Record<string, unknown>) => (f['systemPrompt'] = 'x'.repeat(100_001)), 'checkpoint.fields.systemPrompt: must be at most 100000 characters, got 100001'],
  ])('%s', (_name, change, problem) => {
    expect(problemsOf(storedPayload(change))).toEqual([problem]);
  });

  it.each([
    ['version 2', 2, 'checkpoint.codecVersion: must be 1, got 2'],
    ['version "1"', '1', 'checkpoint.codecVersion: must be 1, got "1"'],
    ['no version', undefined, 'checkpoint.codecVersion: is missing'],
  ])('a wrong codec version: %s', (_name, version, problem) => {
    const payload = storedPayload((_fields, root) => (version === undefined ? delete root['codecVersion'] : (root['codecVersion'] = version)));
    expect(problemsOf(payload)).toEqual([problem]);
  });

  it.each([
    [null, 'null'],
    [[], 'an array'],
    ['{}', '"{}"'],
    [42, '42'],
    [new Date(0), 'a non-plain object'],
    [new Map(), 'a non-plain object'],
  ])('a payload that is not a plain object (%s)', (payload, got) => {
    expect(problemsOf(payload)).toEqual([`checkpoint: must be an object, got ${got}`]);
  });

  it('an extra top-level field and a fields envelope that is not an object', () => {
    expect(problemsOf({ codecVersion: 1, fields: null, policy: 'x' })).toEqual(['checkpoint.policy: is not a known field', 'checkpoint.fields: must be an object, got null']);
  });

  it('an own "__proto__" key parsed from JSON, as an unknown field', () => {
    const json = JSON.stringify(storedPayload()).replace('"fields":{', '"fields":{"__proto__":{"x":1},');
    expect(problemsOf(JSON.parse(json))).toEqual(['checkpoint.fields.__proto__: is not a known field']);
  });

  it('a cyclic payload, without throwing', () => {
    const payload = storedPayload((fields, root) => (fields['budgets'] = root));
    expect(problemsOf(payload)).toEqual([
      'checkpoint.fields.budgets.maxIterations: is missing',
      'checkpoint.fields.budgets.maxToolCalls: is missing',
      'checkpoint.fields.budgets.maxContinuations: is missing',
      'checkpoint.fields.budgets.codecVersion: is not a known field',
      'checkpoint.fields.budgets.fields: is not a known field',
    ]);
  });

  it('with every problem listed, not only the first', () => {
    const payload = storedPayload((fields) => {
      fields['emptyTurnRetried'] = 1;
      fields['iteration'] = -2;
      delete fields['systemPrompt'];
    });
    expect(problemsOf(payload)).toHaveLength(3);
  });
});

describe('decodeCheckpointState accepts', () => {
  it('a checkpoint written before turns could change model, as one whose model is not known', () => {
    const decoded = decodeCheckpointState(storedPayload((fields) => delete fields['model']));
    expect(decoded.ok && decoded.fields.model).toBeNull();
  });

  it('a null deadline, zero caps for tools and continuations, and a "__proto__" fingerprint as plain data', () => {
    const json = JSON.stringify(
      storedPayload((fields) => {
        fields['recoveryDeadlineAt'] = null;
        fields['toolCallsUsed'] = 0;
        fields['continuationsUsed'] = 0;
        fields['budgets'] = { maxIterations: 8, maxToolCalls: 0, maxContinuations: 0 };
      }),
    ).replace('"counts":{', '"counts":{"__proto__":4,');
    const decoded = decodeCheckpointState(JSON.parse(json));
    expect(decoded.ok).toBe(true);
    if (!decoded.ok) return;
    expect(decoded.fields.recoveryDeadlineAt).toBeNull();
    expect(Object.getPrototypeOf(decoded.fields.repeatedCalls.counts)).toBe(Object.prototype);
    expect(Object.entries(decoded.fields.repeatedCalls.counts)).toEqual([
      ['__proto__', 4],
      ['fp1', 3],
      ['fp2', 1],
    ]);
  });
});

describe('validateTranscript', () => {
  it.each([
    ['a non-array', { 0: user('hi') }, ['transcript: must be an array, got an object']],
    ['a null entry', [null], ['transcript[0]: must be an object, got null']],
    ['a block that is a number', [{ role: 'user', content: [42] }], ['transcript[0].content[0]: must be a content block object, got 42']],
    ['an unknown role', [{ role: 'robot', content: [] }], ['transcript[0].role: must be one of system, user, assistant, tool, got "robot"']],
    ['content that is a string', [{ role: 'user', content: 'hi' }], ['transcript[0].content: must be an array, got "hi"']],
    ['an extra message field', [{ ...user('hi'), name: 'x' }], ['transcript[0].name: is not a known field']],
    ['an unknown block type', [{ role: 'user', content: [{ type: 'audio', data: '' }] }], ['transcript[0].content[0].type: must be one of text, image, tool_use, tool_result, reasoning, got "audio"']],
    ['an extra block field', [{ role: 'user', content: [{ type: 'text', text: 'hi', cache: true }] }], ['transcript[0].content[0].cache: is not a known field']],
    ['a missing block field', [{ role: 'user', content: [{ type: 'text' }] }], ['transcript[0].content[0].text: is missing']],
    [
      'a tool_result whose content is a number',
      [user('hi'), calls('a'), { role: 'tool', content: [{ type: 'tool_result', toolUseId: 'a', content: 42, isError: false }] }],
      ['transcript[2].content[0].content: must be a string, got 42'],
    ],
    [
      'a tool_result whose isError is "false"',
      [user('hi'), calls('a'), { role: 'tool', content: [{ type: 'tool_result', toolUseId: 'a', content: 'ok', isError: 'false' }] }],
      ['transcript[2].content[0].isError: must be a boolean, got "false"'],
    ],
    [
      'an image with an unknown source',
      [{ role: 'user', content: [{ type: 'image', mediaType: 'image/png', source: { kind: 'url', url: 'x' } }] }],
      ['transcript[0].content[0].source.kind: must be base64 or blob, got "url"'],
    ],
    [
      'a blob image with an extra field',
      [{ role: 'user', content: [{ type: 'image', mediaType: 'image/png', source: { kind: 'blob', ref: 'r', data: '' } }] }],
      ['transcript[0].content[0].source.data: is not a known field'],
    ],
    [
      'a tool_use whose input is an array',
      [{ role: 'assistant', content: [{ type: 'tool_use', id: 'a', name: 'lookup', input: [] }] }],
      ['transcript[0].content[0].input: must be an object, got an array'],
    ],
    [
      'a tool_use input holding NaN',
      [{ role: 'assistant', content: [{ type: 'tool_use', id: 'a', name: 'lookup', input: { n: [Number.NaN] } }] }],
      ['transcript[0].content[0].input.n[0]: must be a finite number, got NaN'],
    ],
    [
      'a malformedInput without its reason',
      [{ role: 'assistant', content: [{ type: 'tool_use', id: 'a', name: 'lookup', input: {}, malformedInput: { raw: '{' } }] }],
      ['transcript[0].content[0].malformedInput.reason: is missing'],
    ],
    [
      'a tool_use in a user message',
      [{ role: 'user', content: [{ type: 'tool_use', id: 'a', name: 'lookup', input: {} }] }],
      ['transcript[0].content[0]: a tool_use block must be in an assistant message, not in a user message'],
    ],
    [
      'reasoning in a user message',
      [{ role: 'user', content: [{ type: 'reasoning', encryptedContent: 'enc', summary: [] }] }],
      ['transcript[0].content[0]: a reasoning block must be in an assistant message, not in a user message'],
    ],
    [
      'reasoning whose summary is one string, not a list',
      [{ role: 'assistant', content: [{ type: 'reasoning', encryptedContent: 'enc', summary: 'Look it up.' }] }],
      ['transcript[0].content[0].summary: must be an array, got "Look it up."'],
    ],
    [
      'reasoning whose summary is not text',
      [{ role: 'assistant', content: [{ type: 'reasoning', encryptedContent: 'enc', summary: [1] }] }],
      ['transcript[0].content[0].summary[0]: must be a string, got 1'],
    ],
    ['an unanswered call followed by another assistant message', [user('hi'), calls('a'), reply('done')], ['transcript[1]: tool call "a" has no result before the next assistant message']],
    ['a result that answers no call', [user('hi'), calls('a'), results('b')], ['transcript[2]: tool call "b" is answered here but was not called in the model turn before']],
    ['a call answered twice', [user('hi'), calls('a'), results('a'), results('a'), reply('done')], ['transcript[3]: tool call "a" is answered twice']],
  ])('rejects %s', (_name, transcript, problems) => {
    expect(validateTranscript(transcript)).toEqual(problems);
  });

  it('rejects a tool input that contains itself, and one nested too deep, without throwing', () => {
    const cyclic: Record<string, unknown> = {};
    cyclic['self'] = cyclic;
    let deep: unknown = {};
    for (let level = 0; level < 200; level++) deep = { deeper: deep };
    const transcript = [
      {
        role: 'assistant',
        content: [
          { type: 'tool_use', id: 'a', name: 'lookup', input: cyclic },
          { type: 'tool_use', id: 'b', name: 'lookup', input: deep },
        ],
      },
    ];
    const problems = validateTranscript(transcript);
    expect(problems).toHaveLength(2);
    expect(problems[0]).toBe('transcript[0].content[0].input.self: contains itself');
    expect(problems[1]).toMatch(/^transcript\[0\]\.content\[1\]\.input(\.deeper)+: nests deeper than 100 levels$/);
  });

  it('rejects tool input values JSON cannot hold, and describes long strings briefly', () => {
    const input = { when: new Date(0), run: () => 1, missing: undefined, tag: Symbol('x'), big: 1n };
    const transcript = [
      { role: 'assistant', content: [{ type: 'tool_use', id: 'a', name: 'lookup', input }] },
      { role: 'x'.repeat(50), content: [] },
    ];
    expect(validateTranscript(transcript)).toEqual([
      'transcript[0].content[0].input.when: must be a JSON value, got a non-plain object',
      'transcript[0].content[0].input.run: must be a JSON value, got a function',
      'transcript[0].content[0].input.missing: must be a JSON value, got undefined',
      'transcript[0].content[0].input.tag: must be a JSON value, got a symbol',
      'transcript[0].content[0].input.big: must be a JSON value, got 1n',
      `transcript[1].role: must be one of system, user, assistant, tool, got "${'x'.repeat(40)}…"`,
    ]);
  });

  it('accepts unanswered calls in the last assistant message: a turn can stop between intent recorded and its results', () => {
    expect(validateTranscript([user('hi'), calls('a'), results('a'), calls('b', 'c')])).toEqual([]);
    expect(validateTranscript([user('hi'), calls('b', 'c'), results('c')])).toEqual([]);
  });

  it('accepts every block shape the protocol defines', () => {
    const transcript: Message[] = [
      { role: 'system', content: [{ type: 'text', text: 'be brief' }] },
      {
        role: 'user',
        content: [
          { type: 'image', mediaType: 'image/png', source: { kind: 'base64', data: 'iVBORw0KGgo=' } },
          { type: 'image', mediaType: 'image/jpeg', source: { kind: 'blob', ref: 'sha256:ab' } },
        ],
      },
      {
        role: 'assistant',
        content: [
          { type: 'reasoning', encryptedContent: 'gAAAA', summary: ['Look it up.'] },
          { type: 'tool_use', id: 'a', name: 'lookup', input: { q: [1, null, { x: true }] }, malformedInput: { raw: '{', reason: 'not JSON' } },
        ],
      },
      { role: 'tool', content: [{ type: 'tool_result', toolUseId: 'a', content: 'bad input', isError: true }] },
      { role: 'assistant', content: [] },
    ];
    expect(validateTranscript(JSON.parse(JSON.stringify(transcript)))).toEqual([]);
  });
});
