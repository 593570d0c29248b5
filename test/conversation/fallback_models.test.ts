import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { inboundFromText } from '../../src/conversation/notices/channel_commands.js';
import type { ConversationDeps } from '../../src/conversation/conversation_deps.js';
import { Intake } from '../../src/conversation/turns/intake.js';
import type { LLMProvider } from '../../src/llm/provider.js';
import { useConversationHarness } from '../support/conversation_harness.js';
import { anthropicError, anthropicErrorReply, anthropicStart, anthropicText, anthropicTextBlock, anthropicToolUse } from '../support/fake_llm/anthropic.js';
import { chatText } from '../support/fake_llm/openai_chat.js';
import { llmConfig, testProvider } from '../support/fake_llm/provider.js';
import { FakeLLMServer, type FakeStep } from '../support/fake_llm/server.js';
import type { ManualClock } from '../support/manual_clock.js';
import type { SeenEvent } from '../support/recording_sink.js';
import { runToCompletion } from '../support/recovery_runtime.js';

const overloaded = anthropicErrorReply(529, 'overloaded_error', 'Overloaded');
const fallbackOverloaded: FakeStep = { kind: 'reply', status: 503, body: { error: { type: 'service_unavailable_error', message: 'busy' } } };
const repeat = (step: FakeStep, times: number): FakeStep[] => Array.from({ length: times }, () => step);

describe('fallback models in a conversation: an Anthropic primary, an OpenAI-compatible fallback', () => {
  const harness = useConversationHarness();
  let primaryServer: FakeLLMServer;
  let fallbackServer: FakeLLMServer;
  let clock: ManualClock;
  let events: SeenEvent[];
  let primary: LLMProvider;
  let fallback: LLMProvider;

  beforeEach(async () => {
    primaryServer = await FakeLLMServer.start();
    ({ fake: fallbackServer, events, recoveryClock: clock } = harness.current);
    primary = testProvider(llmConfig('anthropic', primaryServer.baseUrl, { model: 'claude-main' }));
    fallback = testProvider(llmConfig('openai', fallbackServer.baseUrl, { model: 'local-llama' }));
  });
  afterEach(() => primaryServer.close());

  const LLM = 'llm:\n  provider: anthropic\n  model: claude-main\n  fallbacks:\n    - { provider: openai, model: local-llama }\n';
  const deps = (extra = ''): ConversationDeps => harness.current.deps(`turn_state:\n  auto_resume: true\n${LLM}${extra}`, { provider: primary, fallbacks: [fallback] });
  const replies = () => events.flatMap((e) => (e.type === 'message' && e.kind === 'reply' ? [e] : []));

  /** Resolves once `holds` is true of the events told so far, checked at each new one. */
  function once(holds: () => boolean): Promise<void> {
    if (holds()) return Promise.resolve();
    return new Promise((resolve) => {
      harness.current.onEvent = () => {
        if (holds()) resolve();
      };
    });
  }

  it('answers from the fallback within the first backoff step when the primary is overloaded, marked as the fallback’s', async () => {
    primaryServer.enqueue(...repeat(overloaded, 5));
    fallbackServer.enqueue(chatText('Milk is a drink.'));
    const bot = new Intake(deps());
    bot.submit(inboundFromText(harness.current.message('what is milk?')));
    await bot.idle();
    expect(clock.monotonicNow()).toBe(0);
    expect(events.some((e) => e.type === 'waiting')).toBe(false);
    expect(replies()).toEqual([expect.objectContaining({ text: 'Milk is a drink.', model: 'local-llama', note: '-# answered by local-llama' })]);
    expect(primaryServer.requests).toHaveLength(1);
  });

  it('starts the draft afresh when the primary is overloaded after writing some of its answer', async () => {
    primaryServer.enqueue({ kind: 'stream', chunks: [...anthropicStart(), ...anthropicTextBlock(0, ['Milk is']), anthropicError('overloaded_error', 'Overloaded')] });
    fallbackServer.enqueue(chatText('Milk is a drink.'));
    const bot = new Intake(deps());
    bot.submit(inboundFromText(harness.current.message('what is milk?')));
    await bot.idle();
    const shown = events.flatMap((e) => (e.type === 'delta' || e.type === 'waiting' ? [`${e.type}: ${e.text}`] : []));
    expect(shown).toEqual(['delta: Milk is', 'waiting: claude-main is overloaded: local-llama goes on…', 'delta: Milk is a drink.']);
    expect(replies()).toEqual([expect.objectContaining({ text: 'Milk is a drink.', model: 'local-llama' })]);
  });

  it('goes on with the fallback after a tool step: the tool ran once and its result is in the fallback’s request', async () => {
    const { target } = harness.current;
    primaryServer.enqueue(anthropicToolUse([{ id: 'toolu_01', name: 'save_note', args: '{"text":"buy milk"}' }]), overloaded);
    fallbackServer.enqueue(chatText('Saved your note.'));
    const bot = new Intake(deps());
    bot.submit(inboundFromText(harness.current.message('note: buy milk')));
    await bot.idle();
    expect(target.requests.map((r) => `${r.method} ${r.path} ${r.body}`)).toEqual(['POST /notes {"text":"buy milk"}']);
    expect(fallbackServer.requests).toHaveLength(1);
    expect(fallbackServer.requests[0]?.body).toMatchObject({
      messages: expect.arrayContaining([
        expect.objectContaining({ role: 'assistant', tool_calls: [expect.objectContaining({ id: 'toolu_01', function: { name: 'save_note', arguments: '{"text":"buy milk"}' } })] }),
        { role: 'tool', tool_call_id: 'toolu_01', content: 'ok' },
      ]) as unknown,
    });
    expect(replies()).toEqual([expect.objectContaining({ text: 'Saved your note.', model: 'local-llama' })]);
  });

  it.each([
    ['the fallback', 'local-llama', { model: 'local-llama', note: '-# answered by local-llama' }],
    ['the primary', 'claude-main', { model: 'claude-main' }],
  ] as const)('suspends when both are overloaded, and resumes on %s when it recovers first', async (_name, recovering, marks) => {
    primaryServer.enqueue(...repeat(overloaded, 40));
    fallbackServer.enqueue(...repeat(fallbackOverloaded, 40));
    const bot = new Intake(deps());
    bot.submit(inboundFromText(harness.current.message('what is milk?')));
    await runToCompletion(
      clock,
      once(() => harness.current.notices().includes('suspended')),
    );
    primaryServer.reset();
    fallbackServer.reset();
    if (recovering === 'local-llama') {
      primaryServer.enqueue(...repeat(overloaded, 40));
      fallbackServer.enqueue(chatText('Milk is a drink.'));
    } else {
      primaryServer.enqueue(anthropicText('Milk is a drink.'));
    }
    await runToCompletion(
      clock,
      once(() => replies().length === 1),
    );
    expect(harness.current.notices()).toEqual(['suspended', 'resumed']);
    const [reply] = replies();
    expect(reply).toMatchObject({ text: 'Milk is a drink.', ...marks });
    if (recovering === 'claude-main') expect(reply?.note).toBeUndefined();
    await bot.close();
  });

  it('tries every model at once on a person’s `resume`, before their cooldowns end: the recovered fallback answers', async () => {
    primaryServer.enqueue(...repeat(overloaded, 40));
    fallbackServer.enqueue(...repeat(fallbackOverloaded, 40));
    const d = harness.current.deps(`turn_state:\n  auto_resume: false\n${LLM}`, { provider: primary, fallbacks: [fallback] });
    const bot = new Intake(d);
    bot.submit(inboundFromText(harness.current.message('what is milk?')));
    await runToCompletion(
      clock,
      once(() => harness.current.notices().includes('suspended')),
    );
    const states = () => [d.recovery.breakers.get('anthropic', 'claude-main'), d.recovery.breakers.get('openai', 'local-llama')].map((breaker) => breaker.snapshot().state);
    expect(states()).toEqual(['open', 'open']);
    primaryServer.reset();
    fallbackServer.reset();
    primaryServer.enqueue(...repeat(overloaded, 40));
    fallbackServer.enqueue(chatText('Milk is a drink.'));
    const resumedAt = clock.monotonicNow();
    bot.submit(inboundFromText(harness.current.message('resume')));
    await runToCompletion(
      clock,
      once(() => replies().length === 1),
    );
    expect(clock.monotonicNow()).toBe(resumedAt);
    expect(primaryServer.requests).toHaveLength(1);
    expect(replies()).toEqual([expect.objectContaining({ text: 'Milk is a drink.', model: 'local-llama' })]);
    expect(harness.current.notices()).toEqual(['suspended', 'resumed']);
    expect(states()).toEqual(['open', 'closed']);
    await bot.close();
  });

  it('does not fall over on an auth error: the user is told, and the fallback is never asked', async () => {
    primaryServer.enqueue(anthropicErrorReply(401, 'authentication_error', 'invalid x-api-key'));
    const bot = new Intake(deps());
    bot.submit(inboundFromText(harness.current.message('what is milk?')));
    await bot.idle();
    expect(events.filter((e) => e.type === 'message' && e.kind === 'notice')).toEqual([
      expect.objectContaining({ notice: 'failed', text: 'The model provider refused the bot’s credentials, so I cannot answer. An operator needs to check the API key.' }),
    ]);
    expect(fallbackServer.requests).toHaveLength(0);
  });

  it('uses only the models an override names, in its order', async () => {
    fallbackServer.enqueue(chatText('From the local model.'));
    const bot = new Intake(deps('overrides:\n  - match: { channel_ids: ["c1"] }\n    models: [local-llama]\n'));
    bot.submit(inboundFromText(harness.current.message('what is milk?')));
    await bot.idle();
    expect(primaryServer.requests).toHaveLength(0);
    expect(replies()).toEqual([expect.objectContaining({ text: 'From the local model.' })]);
  });

  it('tries the model an admin chose for the channel first, and the others in their order when it is overloaded', async () => {
    const bot = new Intake(deps('permissions:\n  admins: ["ada"]\n'));
    bot.submit(inboundFromText(harness.current.message('/model local-llama')));
    await bot.idle();
    fallbackServer.enqueue(fallbackOverloaded);
    primaryServer.enqueue(anthropicText('Milk is a drink.'));
    bot.submit(inboundFromText(harness.current.message('what is milk?')));
    await bot.idle();
    expect(fallbackServer.requests).toHaveLength(1);
    expect(primaryServer.requests).toHaveLength(1);
    // The configured primary stood in for the chosen model: its reply is marked as a stand-in's.
    expect(replies()).toEqual([expect.objectContaining({ text: 'Milk is a drink.', model: 'claude-main', note: '-# answered by claude-main' })]);
  });

  it('leaves a chosen model aside once the channel’s override no longer offers it', async () => {
    const before = new Intake(deps('permissions:\n  admins: ["ada"]\n'));
    before.submit(inboundFromText(harness.current.message('/model local-llama')));
    await before.idle();
    primaryServer.enqueue(anthropicText('Milk is a drink.'));
    const after = new Intake(deps('permissions:\n  admins: ["ada"]\noverrides:\n  - match: { channel_ids: ["c1"] }\n    models: [claude-main]\n'));
    after.submit(inboundFromText(harness.current.message('what is milk?')));
    after.submit(inboundFromText(harness.current.message('/status')));
    await after.idle();
    expect(fallbackServer.requests).toHaveLength(0);
    expect(replies()).toEqual([expect.objectContaining({ text: 'Milk is a drink.' })]);
    expect(events.flatMap((e) => (e.type === 'message' && e.kind === 'notice' ? [e.text] : [])).at(-1)).not.toMatch(/chosen by an admin/);
  });

  it('lists every model of the channel with its breaker state on /status', async () => {
    const d = deps();
    d.recovery.breakers.get('anthropic', 'claude-main').recordGenerationFailure();
    const bot = new Intake(d);
    bot.submit(inboundFromText(harness.current.message('/status')));
    await bot.idle();
    const status = events.flatMap((e) => (e.type === 'message' && e.kind === 'notice' ? [e.text] : []));
    expect(status[0]?.split('\n').slice(2)).toEqual([
      'Models here, in the order they are tried:',
      '- claude-main (anthropic): overloaded; it is tried again at 00:00:05 UTC (in 5 s).',
      '- local-llama (openai): available.',
    ]);
  });
});
