import fc from 'fast-check';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import type { TurnBudgets } from '../../src/engine/chat_turn.js';
import { MAX_BUDGET_CAP, decodeCheckpointState, isInvalidCheckpointError, restoreChatTurn, type ReconstructedParts } from '../../src/engine/turn_codec.js';
import type { CheckpointState } from '../../src/engine/turn_census.js';
import type { ContentBlock, JsonObject, Message } from '../../src/llm/protocol.js';

// A fixed seed keeps every run (and so the coverage ratchet) reproducible; change it to explore further.
const RUNS = { numRuns: 500, seed: 20_261_129 };

/** Values of the wrong type somewhere: each replaces a value only where its type is not plausible. */
const POOL: readonly unknown[] = [0, 1, 'false', null, [], {}, -1, 1.5, 2 ** 53, '1'];
/** Numbers no counter, cap, count or deadline may hold. */
const OVERSIZED: readonly number[] = [2 ** 53, 2 ** 53 + 2, 2 ** 64, 1e300, Number.POSITIVE_INFINITY, Number.NaN];

const parts: ReconstructedParts = {
  turnId: 'turn-1',
  identity: { source: 'console', channelId: 'c1', messageId: 'm1' },
  requester: { userId: 'u1', roleIds: [] },
  tools: [],
  signal: new AbortController().signal,
  logger: pino({ level: 'silent' }),
};

// ---- valid payloads -------------------------------------------------------------------------

const budgetsArb: fc.Arbitrary<TurnBudgets> = fc.record({
  maxIterations: fc.integer({ min: 1, max: MAX_BUDGET_CAP }),
  maxToolCalls: fc.integer({ min: 0, max: MAX_BUDGET_CAP }),
  maxContinuations: fc.integer({ min: 0, max: MAX_BUDGET_CAP }),
});

const repeatedCallsArb = fc
  .dictionary(fc.string({ minLength: 1, maxLength: 12 }), fc.integer({ min: 1, max: 1_000_000 }), { maxKeys: 6 })
  .chain((counts) => fc.subarray(Object.keys(counts)).map((warned) => ({ counts, warned })));

const payloadArb: fc.Arbitrary<CheckpointState> = budgetsArb.chain((budgets) =>
  fc.record({
    codecVersion: fc.constant(1 as const),
    fields: fc.record({
      systemPrompt: fc.string({ maxLength: 40 }),
      iteration: fc.integer({ min: 0, max: budgets.maxIterations }),
      toolCallsUsed: fc.integer({ min: 0, max: budgets.maxToolCalls }),
      budgets: fc.constant(budgets),
      emptyTurnRetried: fc.boolean(),
      continuationsUsed: fc.integer({ min: 0, max: budgets.maxContinuations }),
      finalAnswerRequested: fc.boolean(),
      repeatedCalls: repeatedCallsArb,
      recoveryDeadlineAt: fc.option(fc.maxSafeNat(), { nil: null }),
      model: fc.option(fc.string({ minLength: 1, maxLength: 20 }), { nil: null }),
    }),
  }),
);

// ---- valid transcripts ----------------------------------------------------------------------

// fast-check types its JSON arrays as readonly; the values are the same JSON.
const inputArb: fc.Arbitrary<JsonObject> = fc.dictionary(fc.string({ maxLength: 6 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 }).map((input) => input as JsonObject);
const imageArb: fc.Arbitrary<ContentBlock> = fc.oneof(
  fc.string({ maxLength: 8 }).map((data): ContentBlock => ({ type: 'image', mediaType: 'image/png', source: { kind: 'base64', data } })),
  fc.string({ maxLength: 8 }).map((ref): ContentBlock => ({ type: 'image', mediaType: 'image/jpeg', source: { kind: 'blob', ref } })),
);
const stepArb = fc.record({ text: fc.string({ maxLength: 10 }), inputs: fc.array(inputArb, { maxLength: 3 }), malformed: fc.boolean(), reversed: fc.boolean() });

/** A tool-pair valid transcript: history, answered model turns, then a reply, unanswered calls, or nothing. */
const transcriptArb: fc.Arbitrary<Message[]> = fc
  .record({
    history: fc.array(fc.tuple(fc.string({ maxLength: 10 }), fc.option(imageArb, { nil: undefined })), { minLength: 1, maxLength: 3 }),
    steps: fc.array(stepArb, { maxLength: 4 }),
    ending: fc.constantFrom('reply', 'unanswered', 'none'),
    open: fc.array(inputArb, { minLength: 1, maxLength: 2 }),
  })
  .map(({ history, steps, ending, open }) => {
    const messages: Message[] = history.map(([text, image]) => ({ role: 'user', content: [{ type: 'text', text }, ...(image === undefined ? [] : [image])] }));
    steps.forEach((step, index) => {
      const uses = step.inputs.map((input, call): ContentBlock => ({
        type: 'tool_use',
        id: `s${index}c${call}`,
        name: 'lookup',
        input,
        ...(step.malformed && call === 0 ? { malformedInput: { raw: '{', reason: 'not JSON' } } : {}),
      }));
      messages.push({ role: 'assistant', content: [{ type: 'text', text: step.text }, ...uses] });
      const answers = uses.map((use): ContentBlock => ({ type: 'tool_result', toolUseId: use.type === 'tool_use' ? use.id : '', content: 'ok', isError: false }));
      if (answers.length > 0) messages.push({ role: 'tool', content: step.reversed ? answers.reverse() : answers });
    });
    if (ending === 'reply') messages.push({ role: 'assistant', content: [{ type: 'text', text: 'done' }] });
    if (ending === 'unanswered') messages.push({ role: 'assistant', content: open.map((input, call) => ({ type: 'tool_use', id: `open${call}`, name: 'lookup', input })) });
    return messages;
  });

// ---- mutations ------------------------------------------------------------------------------

type Path = readonly (string | number)[];
type Slot = { readonly path: Path; readonly value: unknown };

const isPlain = (value: unknown): boolean => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Every value at every depth, with its path; the inside of a tool input (free-form JSON) excluded. */
function slotsOf(value: unknown, path: Path = []): Slot[] {
  const here: Slot = { path, value };
  if (path.at(-1) === 'input') return [here];
  if (Array.isArray(value)) return [here, ...value.flatMap((entry: unknown, index) => slotsOf(entry, [...path, index]))];
  if (isPlain(value)) return [here, ...Object.entries(value as object).flatMap(([key, entry]) => slotsOf(entry, [...path, key]))];
  return [here];
}

/** Whether `replacement` could be valid where `slot` holds its value: such a replacement is not a corruption. */
function plausible(slot: Slot, replacement: unknown): boolean {
  if (slot.path.at(-1) === 'recoveryDeadlineAt' && replacement === null) return true;
  if (slot.path.at(-1) === 'model') return replacement === null || typeof replacement === 'string';
  if (typeof slot.value === 'number' || slot.value === null) return typeof replacement === 'number' && Number.isSafeInteger(replacement) && replacement >= 0;
  if (Array.isArray(slot.value)) return Array.isArray(replacement);
  if (isPlain(slot.value)) return isPlain(replacement);
  return typeof replacement === typeof slot.value;
}

/** A copy of `root` with `value` at `path`; defined as an own property, so that "__proto__" stays a key. */
function withValue(root: unknown, path: Path, value: unknown): unknown {
  const copy: unknown = JSON.parse(JSON.stringify(root));
  if (path.length === 0) return value;
  let parent = copy as Record<string | number, unknown>;
  for (const key of path.slice(0, -1)) parent = parent[key] as Record<string | number, unknown>;
  Object.defineProperty(parent, path.at(-1) as string | number, { value, writable: true, enumerable: true, configurable: true });
  return copy;
}

function without(root: unknown, path: Path): unknown {
  const copy: unknown = JSON.parse(JSON.stringify(root));
  let parent = copy as Record<string | number, unknown>;
  for (const key of path.slice(0, -1)) parent = parent[key] as Record<string | number, unknown>;
  delete parent[path.at(-1) as string | number];
  return copy;
}

/** Picks one of `items` by an arbitrary index. */
const pick = <T>(items: readonly T[], index: number): T => items[index % items.length] as T;
const indexArb = fc.nat();
const extraKeyArb = fc.oneof(fc.constantFrom('__proto__', 'constructor', 'hedgingRetried', 'toString'), fc.string({ maxLength: 8 }));

/** Payload mutations, each of which must make the payload invalid. */
function mutatedPayloadArb(payload: CheckpointState): fc.Arbitrary<unknown> {
  const slots = slotsOf(payload);
  const replaceable = (slot: Slot) => POOL.filter((value) => !plausible(slot, value));
  const fixedShape = slots.filter((slot) => isPlain(slot.value) && slot.path.at(-1) !== 'counts');
  // A payload written before turns could change model has no `model`: leaving it out is no corruption.
  const required = slots.filter((slot) => slot.path.length > 0 && typeof slot.path.at(-1) === 'string' && slot.path.at(-2) !== 'counts' && slot.path.at(-1) !== 'model');
  const numeric = slots.filter((slot) => typeof slot.value === 'number');
  const counters = ['iteration', 'toolCallsUsed', 'continuationsUsed'] as const;
  const capOf = { iteration: 'maxIterations', toolCallsUsed: 'maxToolCalls', continuationsUsed: 'maxContinuations' } as const;
  return fc.oneof(
    fc.tuple(indexArb, indexArb).map(([at, choice]) => {
      const slot = pick(slots, at);
      return withValue(payload, slot.path, pick(replaceable(slot), choice));
    }),
    indexArb.map((at) => without(payload, pick(required, at).path)),
    fc.tuple(indexArb, extraKeyArb, fc.constantFrom(...POOL)).map(([at, key, value]) => {
      const target = pick(fixedShape, at);
      return Object.hasOwn(target.value as object, key) ? without(payload, [...target.path, key]) : withValue(payload, [...target.path, key], value);
    }),
    fc.tuple(fc.constantFrom(...counters), fc.integer({ min: 1, max: 1_000 })).map(([counter, excess]) => withValue(payload, ['fields', counter], payload.fields.budgets[capOf[counter]] + excess)),
    fc.tuple(indexArb, fc.integer({ min: -1_000_000, max: -1 })).map(([at, negative]) => withValue(payload, pick(numeric, at).path, negative)),
    fc.tuple(indexArb, fc.constantFrom(...OVERSIZED)).map(([at, oversized]) => withValue(payload, pick(numeric, at).path, oversized)),
    fc
      .tuple(fc.constantFrom('maxIterations', 'maxToolCalls', 'maxContinuations'), fc.integer({ min: MAX_BUDGET_CAP + 1, max: 2 ** 40 }))
      .map(([cap, value]) => withValue(payload, ['fields', 'budgets', cap], value)),
  );
}

/** Transcript mutations, each of which must make the transcript invalid. */
function corruptedTranscriptArb(transcript: Message[]): fc.Arbitrary<unknown> {
  const slots = slotsOf(transcript);
  const objects = slots.filter((slot) => isPlain(slot.value) && slot.path.at(-1) !== 'input');
  const required = slots.filter((slot) => typeof slot.path.at(-1) === 'string' && slot.path.at(-1) !== 'malformedInput');
  const results = slots.filter((slot) => isPlain(slot.value) && (slot.value as { type?: unknown }).type === 'tool_result');
  const mutations: fc.Arbitrary<unknown>[] = [
    fc.tuple(indexArb, indexArb).map(([at, choice]) => {
      const slot = pick(slots, at);
      return withValue(
        transcript,
        slot.path,
        pick(
          POOL.filter((value) => !plausible(slot, value)),
          choice,
        ),
      );
    }),
    indexArb.map((at) => without(transcript, pick(required, at).path)),
    fc.tuple(indexArb, extraKeyArb, fc.constantFrom(...POOL)).map(([at, key, value]) => {
      const target = pick(objects, at);
      return Object.hasOwn(target.value as object, key) ? without(transcript, [...target.path, key]) : withValue(transcript, [...target.path, key], value);
    }),
    fc
      .tuple(
        indexArb,
        fc.string().filter((role) => !['system', 'user', 'assistant', 'tool'].includes(role)),
      )
      .map(([at, role]) => withValue(transcript, [at % transcript.length, 'role'], role)),
    fc.constant([...transcript, { role: 'assistant', content: [{ type: 'tool_use', id: 'late', name: 'lookup', input: {} }] }, { role: 'assistant', content: [] }]),
    fc.constant([...transcript, { role: 'user', content: [{ type: 'tool_use', id: 'user-call', name: 'lookup', input: {} }] }]),
  ];
  if (results.length > 0) {
    mutations.push(indexArb.map((at) => withValue(transcript, [...pick(results, at).path, 'content'], 42)));
    mutations.push(indexArb.map((at) => withValue(transcript, [...pick(results, at).path, 'toolUseId'], 'never-called')));
  }
  return fc.oneof(...mutations);
}

function restoreFailure(payload: unknown, transcript: unknown): readonly string[] | 'restored' {
  try {
    restoreChatTurn(payload, transcript, parts);
    return 'restored';
  } catch (error) {
    if (isInvalidCheckpointError(error)) return error.problems;
    throw error;
  }
}

describe('the checkpoint codec, on generated input', () => {
  it('decodes every valid payload, in memory and after JSON, to the same fields', () => {
    fc.assert(
      fc.property(payloadArb, (payload) => {
        const decoded = decodeCheckpointState(payload);
        expect(decoded).toEqual({ ok: true, fields: payload.fields });
        expect(decodeCheckpointState(JSON.parse(JSON.stringify(payload)))).toEqual(decoded);
      }),
      RUNS,
    );
  });

  it('restores every valid payload with every valid transcript', () => {
    fc.assert(
      fc.property(payloadArb, transcriptArb, (payload, transcript) => {
        const stored: unknown = JSON.parse(JSON.stringify(transcript));
        const turn = restoreChatTurn(payload, stored, parts);
        expect(turn.transcript).toEqual(stored);
        expect(turn.transcript).not.toBe(stored);
        expect(turn.budgets).toEqual(payload.fields.budgets);
      }),
      RUNS,
    );
  });

  it('rejects every mutated payload with ok: false and problems that name their path, never by throwing', () => {
    const mutated = payloadArb.chain((payload) => mutatedPayloadArb(payload));
    fc.assert(
      fc.property(mutated, (payload) => {
        const decoded = decodeCheckpointState(payload);
        expect(decoded.ok).toBe(false);
        if (decoded.ok) return;
        expect(decoded.problems.length).toBeGreaterThan(0);
        for (const problem of decoded.problems) expect(problem).toMatch(/^checkpoint[.[:]/);
      }),
      RUNS,
    );
  });

  it('refuses to restore a mutated payload with InvalidCheckpointError only', () => {
    const cases = fc.tuple(
      payloadArb.chain((payload) => mutatedPayloadArb(payload)),
      transcriptArb,
    );
    fc.assert(
      fc.property(cases, ([payload, transcript]) => {
        const failure = restoreFailure(payload, transcript);
        expect(failure).not.toBe('restored');
        expect(failure.length).toBeGreaterThan(0);
      }),
      RUNS,
    );
  });

  it('refuses to restore a corrupted transcript with InvalidCheckpointError only', () => {
    const cases = fc.tuple(
      payloadArb,
      transcriptArb.chain((transcript) => corruptedTranscriptArb(transcript)),
    );
    fc.assert(
      fc.property(cases, ([payload, transcript]) => {
        const failure = restoreFailure(payload, transcript);
        expect(failure).not.toBe('restored');
        for (const problem of failure) expect(problem).toMatch(/^transcript[.[:]/);
      }),
      RUNS,
    );
  });
});
