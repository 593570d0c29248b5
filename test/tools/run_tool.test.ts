import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../support/manual_clock.js';
import type { JsonObject } from '../../src/llm/protocol.js';
import { runTool } from '../../src/tools/run_tool.js';
import type { Tool, ToolContext, ToolOutcome } from '../../src/tools/tool.js';
import type { EffectClass } from '../../src/turn_state/ledger_types.js';

const context = (signal = new AbortController().signal): ToolContext => ({
  signal,
  idempotencyKey: 'hf_key',
  requesterId: 'user-1',
  channel: { source: 'console', channelId: 'c' },
  logger: pino({ level: 'silent' }),
});

/** A tool whose execution the test scripts; it records the inputs it ran with. */
function scripted(effect: EffectClass, execute: (input: JsonObject, context: ToolContext) => Promise<ToolOutcome>): Tool & { runs: JsonObject[] } {
  const runs: JsonObject[] = [];
  return {
    name: 'lookup',
    description: 'looks a city up',
    inputSchema: { type: 'object', properties: { city: { type: 'string' }, days: { type: 'integer', minimum: 1 } }, required: ['city'], additionalProperties: false },
    effect,
    timeoutMs: 5_000,
    runs,
    execute: (input, ctx) => {
      runs.push(input);
      return execute(input, ctx);
    },
  };
}

/** Resolves when the tool's signal aborts, with the reason's name: a tool that honours cancellation. */
const waitForAbort = (ctx: ToolContext): Promise<ToolOutcome> =>
  new Promise((resolve) => ctx.signal.addEventListener('abort', () => resolve({ kind: 'failed', error: `aborted: ${(ctx.signal.reason as Error).name}` }), { once: true }));

describe('runTool', () => {
  it('runs a call whose input matches the schema and returns what the tool reported', async () => {
    const tool = scripted('read', () => Promise.resolve({ kind: 'result', text: 'Oslo: snow' }));
    expect(await runTool(tool, { city: 'Oslo' }, context(), new ManualClock())).toEqual({ kind: 'result', text: 'Oslo: snow' });
    expect(tool.runs).toEqual([{ city: 'Oslo' }]);
  });

  it('refuses input that breaks the schema as a definite failure the model can read, running nothing', async () => {
    const tool = scripted('write', () => Promise.resolve({ kind: 'result', text: 'ran' }));
    expect(await runTool(tool, { days: 0, extra: true }, context(), new ManualClock())).toEqual({
      kind: 'failed',
      error: "invalid input for lookup: input must have required property 'city', input must NOT have additional properties, input/days must be >= 1",
    });
    expect(tool.runs).toEqual([]);
  });

  it('aborts the tool at its timeout on the clock', async () => {
    const clock = new ManualClock();
    const tool = scripted('read', (_input, ctx) => waitForAbort(ctx));
    const outcome = runTool(tool, { city: 'Oslo' }, context(), clock);
    await clock.whenSleeping();
    await clock.advance(4_999);
    expect(tool.runs).toHaveLength(1);
    await clock.advance(1);
    expect(await outcome).toEqual({ kind: 'failed', error: 'aborted: TimeoutError' });
  });

  it('passes a cancellation of the turn on to the tool', async () => {
    const controller = new AbortController();
    const tool = scripted('read', (_input, ctx) => waitForAbort(ctx));
    const outcome = runTool(tool, { city: 'Oslo' }, context(controller.signal), new ManualClock());
    controller.abort();
    expect(await outcome).toEqual({ kind: 'failed', error: 'aborted: AbortError' });
  });

  it('reports a tool that throws as failed for a read and as uncertain for anything with an effect', async () => {
    const boom = (): Promise<ToolOutcome> => Promise.reject(new Error('socket hang up'));
    expect(await runTool(scripted('read', boom), { city: 'Oslo' }, context(), new ManualClock())).toEqual({ kind: 'failed', error: 'lookup failed unexpectedly: socket hang up' });
    for (const effect of ['write', 'idempotent'] as const) {
      expect(await runTool(scripted(effect, boom), { city: 'Oslo' }, context(), new ManualClock())).toEqual({ kind: 'uncertain', error: 'lookup failed unexpectedly: socket hang up' });
    }
  });

  it('says so when a tool comes with a schema that cannot be compiled', async () => {
    const tool = { ...scripted('read', () => Promise.resolve({ kind: 'result', text: '' })), inputSchema: { type: 'not-a-type' } };
    const outcome = await runTool(tool, { city: 'Oslo' }, context(), new ManualClock());
    expect(outcome.kind).toBe('failed');
    expect(outcome.kind === 'failed' && outcome.error).toMatch(/^invalid input for lookup: the tool's own input schema is invalid/);
  });
});
