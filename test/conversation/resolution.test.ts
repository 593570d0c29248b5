import { Writable } from 'node:stream';
import { pino } from 'pino';
import { beforeEach, describe, expect, it } from 'vitest';
import { inboundFromText } from '../../src/conversation/notices/channel_commands.js';
import { giveVerdict } from '../../src/conversation/operators/operator_actions.js';
import { verdictPhrase } from '../../src/conversation/operators/resolution_notices.js';
import { OP_STATES } from '../../src/turn_state/ledger_types.js';
import { Intake } from '../../src/conversation/turns/intake.js';
import type { ConversationDeps } from '../../src/conversation/conversation_deps.js';
import type { InboundMessage } from '../../src/conversation/transport.js';
import { chatText, chatToolCalls } from '../support/fake_llm/openai_chat.js';
import type { FakeLLMServer } from '../support/fake_llm/server.js';
import { useConversationHarness, withoutDurability } from '../support/conversation_harness.js';
import type { ManualClock } from '../support/manual_clock.js';
import { runToCompletion } from '../support/recovery_runtime.js';
import type { SeenEvent } from '../support/recording_sink.js';
import type { TestStoreFile } from '../support/store_file.js';
import type { ToolTarget } from '../support/tool_target.js';
import { admissionFor, storeWith } from '../support/turn_store.js';
import { TurnStateUnavailable } from '../../src/turn_state/errors.js';

const never = new Promise<void>(() => undefined);

/** The tool results the model was sent in request `index`, as the OpenAI chat wire carries them. */
function toolResultsSent(fake: FakeLLMServer, index: number): unknown[] {
  const body = fake.requests[index]?.body as { messages: { role: string }[] } | undefined;
  return (body?.messages ?? []).filter((message) => message.role === 'tool');
}

describe('an uncertain write waits for an operator’s verdict (DESIGN §9.1)', () => {
  const harness = useConversationHarness();
  let fake: FakeLLMServer;
  let target: ToolTarget;
  let store: TestStoreFile;
  let storeClock: ManualClock;
  let events: SeenEvent[];
  let logLines: Record<string, unknown>[];
  beforeEach(() => {
    ({ fake, target, events, store } = harness.current);
    storeClock = store.clock;
    logLines = [];
  });

  const deps = (autoResume = false): ConversationDeps => {
    const stream = new Writable({
      write(chunk: Buffer, _encoding, done) {
        logLines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
        done();
      },
    });
    return harness.current.deps(`turn_state:\n  auto_resume: ${autoResume}\n`, { logger: pino({ level: 'debug' }, stream) });
  };
  const settle = (bot: Intake): Promise<void> => runToCompletion(harness.current.recoveryClock, bot.idle());
  const noticesOf = (kind: string): SeenEvent[] => events.filter((e) => e.type === 'message' && e.kind === 'notice' && e.notice === kind);
  const textOf = (event: SeenEvent | undefined): string => (event?.type === 'message' ? event.text : '');

  /** Runs a `save_note` whose target never answers, so its outcome is unknown: the turn parks. */
  async function parkedTurn(bot: Intake): Promise<{ turnId: string; original: InboundMessage }> {
    target.reply({ hold: never });
    target.onRequest = () => storeClock.advance(6_000);
    fake.enqueue(chatToolCalls([{ id: 'w1', name: 'save_note', args: '{"text":"open ticket"}' }]));
    const original = harness.current.message('open a ticket');
    bot.submit(inboundFromText(original));
    await settle(bot);
    target.onRequest = undefined;
    const parked = events.find((e) => e.type === 'turn' && e.status === 'AWAITING_RESOLUTION');
    if (parked?.type !== 'turn') throw new Error('the turn was not parked');
    return { turnId: parked.turn, original };
  }

  it('parks the turn, tells the user which call and which turn, and logs a WARN line with the command to run', async () => {
    const bot = new Intake(deps());
    const { turnId, original } = await parkedTurn(bot);

    expect((await store.turns.getTurn(turnId))?.status).toBe('AWAITING_RESOLUTION');
    const notice = textOf(noticesOf('manual_resolution')[0]);
    expect(notice).toContain('`save_note` (call w1)');
    expect(notice).toContain(`turn ${turnId.slice(0, 8)}`);
    expect(notice).toContain(`holdfast turns resolve ${turnId.slice(0, 8)}`);
    const warn = logLines.find((line) => line['level'] === 40 && 'command' in line);
    expect(warn).toMatchObject({ turn: turnId, channel: 'c1', requester: original.authorId, effect: 'write', call: 'w1', input: { text: 'open ticket' } });
    expect(warn?.['command']).toMatch(new RegExp(`^holdfast turns resolve ${turnId.slice(0, 8)} w1 --applied`));
    expect(target.requests).toHaveLength(1);
  });

  it('answers a resume while the verdict is awaited without running anything', async () => {
    const bot = new Intake(deps());
    const { turnId } = await parkedTurn(bot);
    const asked = fake.requests.length;

    bot.submit(inboundFromText(harness.current.message('resume')));
    await settle(bot);

    expect(textOf(noticesOf('manual_resolution')[1])).toMatch(new RegExp(`turn ${turnId.slice(0, 8)}\\) is waiting for an operator to check whether \`save_note\` \\(call w1\\)`));
    expect(noticesOf('resumed')).toEqual([]);
    expect(fake.requests).toHaveLength(asked);
    expect(target.requests).toHaveLength(1);
  });

  it('answers `/resume <its short id>`, and a bare `resume` after a later request of the same person, with the call the verdict waits for, running nothing', async () => {
    const bot = new Intake(deps());
    const { turnId } = await parkedTurn(bot);
    fake.enqueue(chatText('Hello, Ada.'));
    bot.submit(inboundFromText(harness.current.message('hello')));
    await settle(bot);
    const asked = fake.requests.length;

    bot.submit(inboundFromText(harness.current.message(`/resume ${turnId.slice(0, 8)}`)));
    bot.submit(inboundFromText(harness.current.message('resume')));
    await settle(bot);

    const waiting =
      `Your request (turn ${turnId.slice(0, 8)}) is waiting for an operator to check whether \`save_note\` (call w1) ` +
      `took effect. I will tell you here once that is done; then \`resume\` continues it.`;
    expect(noticesOf('manual_resolution').slice(1).map(textOf)).toEqual([waiting, waiting]);
    expect(harness.current.replies()).toEqual(['Hello, Ada.']);
    expect(fake.requests).toHaveLength(asked);
    expect(target.requests).toHaveLength(1);
  });

  it('tells a resume of a request another process still holds to try again once that process’s lease runs out, running nothing', async () => {
    const held = await store.turns.admit(admissionFor('m-held', 'c1'));
    if (held.disposition !== 'admitted') throw new Error('not admitted');
    await storeClock.advance(12_000);
    const bot = new Intake(deps());

    bot.submit(inboundFromText({ ...harness.current.message('resume'), authorId: held.turn.requesterId }));
    bot.submit(inboundFromText({ ...harness.current.message(`/resume ${held.turn.turnId.slice(0, 8)}`), authorId: held.turn.requesterId }));
    await settle(bot);

    const retry = `Another process was working on your request (turn ${held.turn.turnId.slice(0, 8)}); try \`resume\` again in 18 s.`;
    expect(noticesOf('in_progress').map(textOf)).toEqual([retry, retry]);
    expect(fake.requests).toHaveLength(0);
    expect((await store.turns.getTurn(held.turn.turnId))?.status).toBe('ACTIVE');

    // Its lease ran out and no sweep has taken the turn yet: it is picked up in a moment.
    await storeClock.advance(20_000);
    bot.submit(inboundFromText({ ...harness.current.message('resume'), authorId: held.turn.requesterId }));
    await settle(bot);
    expect(textOf(noticesOf('in_progress')[2])).toBe(`Another process was working on your request (turn ${held.turn.turnId.slice(0, 8)}); try \`resume\` again in a moment.`);
  });

  it('applied: the requester is told once, and resume gives the model the operator’s result; the call is never sent again', async () => {
    const bot = new Intake(deps());
    const { turnId } = await parkedTurn(bot);
    const verdict = await giveVerdict(store.operator, { turn: turnId.slice(0, 8), call: 'w1', verdict: 'applied', text: 'ticket T-42 was created', by: 'cli:ops' });
    expect(verdict).toMatchObject({ kind: 'recorded', remaining: 0 });

    await bot.announceResolutions('console');
    await bot.announceResolutions('console');
    expect(noticesOf('resolved').map(textOf)).toEqual([
      `An operator checked your saved request (turn ${turnId.slice(0, 8)}): \`save_note\` (call w1) took effect: ticket T-42 was created. Type \`resume\` to continue your request.`,
    ]);

    fake.enqueue(chatText('Your ticket is T-42.'));
    bot.submit(inboundFromText(harness.current.message('resume')));
    await settle(bot);

    expect(harness.current.replies()).toEqual(['Your ticket is T-42.']);
    expect(toolResultsSent(fake, fake.requests.length - 1)).toEqual([{ role: 'tool', tool_call_id: 'w1', content: 'ticket T-42 was created' }]);
    expect(noticesOf('resolved')).toHaveLength(1);
    expect(target.requests).toHaveLength(1);
    expect((await store.turns.getTurn(turnId))?.status).toBe('TERMINAL_COMPLETED');
  });

  it('not applied, with auto-resume on: the turn goes on by itself and the model may propose the call again as a new one', async () => {
    const bot = new Intake(deps(true));
    const { turnId } = await parkedTurn(bot);
    await giveVerdict(store.operator, { turn: turnId, call: 'w1', verdict: 'not_applied', text: 'no ticket at the target', by: 'cli:ops' });
    target.reply({ status: 201, body: 'created T-43' });
    fake.enqueue(chatToolCalls([{ id: 'w2', name: 'save_note', args: '{"text":"open ticket"}' }]), chatText('Done: T-43.'));

    await bot.announceResolutions('console');
    await settle(bot);

    expect(textOf(noticesOf('resolved')[0])).toContain('`save_note` (call w1) did not take effect (no ticket at the target). I am continuing your request now.');
    const sent = toolResultsSent(fake, fake.requests.length - 2);
    expect(sent).toEqual([
      { role: 'tool', tool_call_id: 'w1', content: expect.stringMatching(/^Error: An operator checked and found that this call did not take effect \(no ticket at the target\)/) as unknown },
    ]);
    expect(harness.current.replies()).toEqual(['Done: T-43.']);
    expect(target.requests.map((request) => request.body)).toEqual(['{"text":"open ticket"}', '{"text":"open ticket"}']);
    expect((await store.turns.listOps(turnId)).map((op) => [op.toolCallId, op.state])).toEqual([
      ['w1', 'RESOLVED_NOT_APPLIED'],
      ['w2', 'APPLIED'],
    ]);
  });

  it('answers an admin’s /resolve even when the requester cannot be told at once, and tells them at the next round', async () => {
    const first = new Intake(deps());
    const { turnId } = await parkedTurn(first);
    const failing = storeWith(store.turns, 'listResolvedUntold', () => Promise.reject(new TurnStateUnavailable('list resolved', new Error('disk I/O error'))));
    const bot = new Intake(harness.current.deps('permissions:\n  admins: ["admin"]\n', { store: failing, operator: store.operator, logger: deps().logger }));
    const scope = { name: 'this console', includes: () => Promise.resolve(true), mentionChannel: (id: string) => `#${id}`, mentionUser: (id: string) => `@${id}` };
    bot.submit({ kind: 'resolve', origin: harness.current.message('/resolve', 'admin'), scope, turn: turnId.slice(0, 8), call: 'w1', verdict: 'applied', text: 'done' });
    await settle(bot);
    expect(noticesOf('operator').map(textOf)).toEqual([expect.stringMatching(/^Recorded/) as unknown]);
    expect(noticesOf('resolved')).toEqual([]);
    expect(logLines).toContainEqual(expect.objectContaining({ level: 50, msg: 'resolved turns could not be announced: the watch for verdicts tries again' }));
    await first.announceResolutions('console');
    expect(noticesOf('resolved')).toHaveLength(1);
  });

  it('a resume right after the last verdict is told what the operator found before the turn goes on', async () => {
    const bot = new Intake(deps());
    const { turnId } = await parkedTurn(bot);
    await giveVerdict(store.operator, { turn: turnId, call: 'w1', verdict: 'applied', text: null, by: 'cli:ops' });
    fake.enqueue(chatText('Saved.'));

    bot.submit(inboundFromText(harness.current.message('resume')));
    await settle(bot);

    expect(harness.current.notices().slice(-2)).toEqual(['resolved', 'resumed']);
    expect(textOf(noticesOf('resolved')[0])).toContain('`save_note` (call w1) took effect. I am continuing your request now.');
    expect(toolResultsSent(fake, fake.requests.length - 1)).toEqual([{ role: 'tool', tool_call_id: 'w1', content: 'An operator confirmed that this call took effect.' }]);
    await bot.announceResolutions('console');
    expect(noticesOf('resolved')).toHaveLength(1);
    expect(harness.current.replies()).toEqual(['Saved.']);
  });

  it('a resume that meets the announcement of its verdict halfway does not tell the requester a second time', async () => {
    const announcing = new Intake(deps());
    const { turnId } = await parkedTurn(announcing);
    await giveVerdict(store.operator, { turn: turnId, call: 'w1', verdict: 'applied', text: null, by: 'cli:ops' });
    fake.enqueue(chatText('Saved.'));
    // The resume has read the turn, still untold, when the announcement tells it; then it claims the turn.
    const meeting = storeWith(store.turns, 'claimResume', async (id, generation) => {
      await announcing.announceResolutions('console');
      return store.turns.claimResume(id, generation);
    });
    const bot = new Intake(harness.current.deps('', { store: meeting }));

    bot.submit(inboundFromText(harness.current.message('resume')));
    await settle(bot);

    expect(noticesOf('resolved').map(textOf)).toEqual([expect.stringContaining('`save_note` (call w1) took effect. Type `resume` to continue your request.') as unknown]);
    expect(harness.current.replies()).toEqual(['Saved.']);
  });

  it('the same message arriving again is told that its turn awaits a verdict, and nothing runs', async () => {
    const bot = new Intake(deps());
    const { turnId, original } = await parkedTurn(bot);
    const asked = fake.requests.length;

    bot.submit(inboundFromText(original));
    await settle(bot);

    expect(textOf(noticesOf('manual_resolution')[1])).toBe(
      `This request (turn ${turnId.slice(0, 8)}) is waiting for an operator to check a call whose outcome is unknown; I will tell you here once that is done.`,
    );
    expect(fake.requests).toHaveLength(asked);
    expect(target.requests).toHaveLength(1);
  });

  it('a verdict answers the call even when its tool may no longer be used by the requester', async () => {
    const { turnId } = await parkedTurn(new Intake(deps()));
    await giveVerdict(store.operator, { turn: turnId, call: 'w1', verdict: 'applied', text: 'ticket T-42', by: 'cli:ops' });
    const denied = new Intake(harness.current.deps('permissions:\n  tools:\n    save_note:\n      deny_users: [ada]\n'));
    fake.enqueue(chatText('Your ticket is T-42.'));

    denied.submit(inboundFromText(harness.current.message('resume')));
    await settle(denied);

    expect(toolResultsSent(fake, fake.requests.length - 1)).toEqual([{ role: 'tool', tool_call_id: 'w1', content: 'ticket T-42' }]);
    expect(harness.current.replies()).toEqual(['Your ticket is T-42.']);
  });

  it('without a store no verdict can be kept: the turn ends and the user is told to check the call themselves', async () => {
    const bot = new Intake(harness.current.deps('', withoutDurability()));
    target.reply({ hold: never });
    target.onRequest = () => storeClock.advance(6_000);
    fake.enqueue(chatToolCalls([{ id: 'w1', name: 'save_note', args: '{"text":"open ticket"}' }]));

    bot.submit(inboundFromText(harness.current.message('open a ticket')));
    await settle(bot);

    expect(events.filter((e) => e.type === 'turn').map((e) => (e.type === 'turn' ? e.status : ''))).toEqual(['ACTIVE', 'TERMINAL_REJECTED']);
    expect(textOf(noticesOf('manual_resolution')[0])).toBe(
      'I stopped: I cannot tell whether `save_note` (call w1) took effect, and running it again could do it twice. Please check it yourself before asking again.',
    );
  });

  it('a store that fails as the turn parks says so and promises nothing', async () => {
    const failing = storeWith(store.turns, 'awaitResolution', () => Promise.reject(new TurnStateUnavailable('await resolution', new Error('disk I/O error'))));
    const bot = new Intake(harness.current.deps('', { store: failing }));
    target.reply({ hold: never });
    target.onRequest = () => storeClock.advance(6_000);
    fake.enqueue(chatToolCalls([{ id: 'w1', name: 'save_note', args: '{"text":"open ticket"}' }]));

    bot.submit(inboundFromText(harness.current.message('open a ticket')));
    await settle(bot);

    expect(harness.current.notices()).toEqual(['failed']);
    expect(textOf(noticesOf('failed')[0])).toMatch(/could not record how this request ended/);
  });

  it('tells the requester only of what an operator found: a call in any other state, an approval included, has no verdict to tell', () => {
    const op = {
      turnId: 't',
      step: 1,
      toolCallId: 'w1',
      toolName: 'save_note',
      effect: 'write',
      idempotencyKey: 'hf_1',
      fingerprint: '',
      input: {},
      inputRedacted: false,
      result: null,
      error: null,
      approval: null,
      createdAt: 0,
      updatedAt: 0,
    } as const;
    const verdict = { by: 'cli:ops', at: 0, text: 'ticket T-1' };
    const told = OP_STATES.map((state) => [state, verdictPhrase({ ...op, state, verdict: state.startsWith('RESOLVED_') ? verdict : null })]);
    expect(told.filter(([, phrase]) => phrase !== undefined)).toEqual([
      ['RESOLVED_APPLIED', 'took effect: ticket T-1'],
      ['RESOLVED_NOT_APPLIED', 'did not take effect (ticket T-1)'],
    ]);
    expect(verdictPhrase({ ...op, state: 'APPROVED', verdict })).toBeUndefined();
  });
});
