import { describe, expect, it } from 'vitest';
import { inboundFromText } from '../../src/conversation/notices/channel_commands.js';
import { Intake } from '../../src/conversation/turns/intake.js';
import { chatText, chatToolCalls } from '../support/fake_llm/openai_chat.js';
import type { FakeLLMServer } from '../support/fake_llm/server.js';
import { useConversationHarness, withoutDurability } from '../support/conversation_harness.js';
import { runToCompletion } from '../support/recovery_runtime.js';
import { storeWith } from '../support/turn_store.js';
import { StaleTurnError, TurnStateUnavailable } from '../../src/turn_state/errors.js';
import { TEXTS } from '../../src/conversation/notices/texts.js';

/** Writes wait for approval, for 30 minutes. */
const APPROVALS = `  approval_defaults:\n    write: required\n  approval_timeout_minutes: 30\n`;

/** The tool results the model was sent in request `index`, as the OpenAI chat wire carries them. */
function toolResultsSent(fake: FakeLLMServer, index: number): unknown[] {
  const body = fake.requests[index]?.body as { messages: { role: string }[] } | undefined;
  return (body?.messages ?? []).filter((message) => message.role === 'tool');
}

describe('approval before a call, in the conversation (DESIGN §9.2)', () => {
  const harness = useConversationHarness();
  const settle = (bot: Intake): Promise<void> => runToCompletion(harness.current.recoveryClock, bot.idle());
  const say = async (bot: Intake, text: string, authorId = 'ada'): Promise<void> => {
    bot.submit(inboundFromText(harness.current.message(text, authorId)));
    await settle(bot);
  };
  const operatorAnswers = (): string[] => harness.current.events.flatMap((e) => (e.type === 'message' && e.kind === 'notice' && e.notice === 'operator' ? [e.text] : []));

  it('runs the step’s reads at once, asks for its write, and after /approve runs the write once and answers from both', async () => {
    const { fake, target, events, store } = harness.current;
    const bot = new Intake(harness.current.deps(APPROVALS));
    fake.enqueue(
      chatToolCalls([
        { id: 'r1', name: 'lookup', args: '{"word":"printer"}' },
        { id: 'w1', name: 'save_note', args: '{"text":"printer on fire"}' },
      ]),
      chatText('Looked it up and saved it.'),
    );
    await say(bot, 'look up printer, then note it is on fire');

    expect(target.requests.map((r) => `${r.method} ${r.path}`)).toEqual(['GET /lookup/printer']);
    const asked = events.find((e) => e.type === 'approval_asked');
    expect(asked).toMatchObject({ call: 'w1' });
    expect(asked?.type === 'approval_asked' ? asked.text : '').toContain('`save_note` (write) wants to run');
    expect(harness.current.replies()).toEqual([]);

    await say(bot, '/approve');
    expect(operatorAnswers()).toEqual(['Approved: `save_note` runs now.']);
    expect(target.requests.map((r) => `${r.method} ${r.path}`)).toEqual(['GET /lookup/printer', 'POST /notes']);
    expect(harness.current.replies()).toEqual(['Looked it up and saved it.']);
    expect(toolResultsSent(fake, 1)).toEqual([
      { role: 'tool', tool_call_id: 'r1', content: 'ok' },
      { role: 'tool', tool_call_id: 'w1', content: 'ok' },
    ]);
    const turnId = asked?.type === 'approval_asked' ? asked.turn : '';
    expect((await store.turns.listOps(turnId)).map((op) => op.state)).toEqual(['APPLIED', 'APPLIED']);
    expect(events.find((e) => e.type === 'approval_settled')).toMatchObject({ messageId: `asked:${asked?.type === 'approval_asked' ? asked.approvalId : ''}` });
  });

  it('/deny CALL with a note: the write never runs and the model reads the note', async () => {
    const { fake, target } = harness.current;
    const bot = new Intake(harness.current.deps(APPROVALS));
    fake.enqueue(chatToolCalls([{ id: 'w1', name: 'save_note', args: '{"text":"x"}' }]), chatText('I did not save it.'));
    await say(bot, 'note x');

    await say(bot, '/deny w1 the wrong channel');
    expect(target.requests).toEqual([]);
    expect(toolResultsSent(fake, 1)).toEqual([{ role: 'tool', tool_call_id: 'w1', content: 'Error: not run: denied by console:ada: the wrong channel' }]);
    expect(harness.current.replies()).toEqual(['I did not save it.']);
  });

  it('a step with two writes asks for each; it goes on once both are answered, running only the approved one, in order', async () => {
    const { fake, target, events } = harness.current;
    const bot = new Intake(harness.current.deps(APPROVALS));
    fake.enqueue(
      chatToolCalls([
        { id: 'w1', name: 'save_note', args: '{"text":"one"}' },
        { id: 'w2', name: 'save_note', args: '{"text":"two"}' },
      ]),
      chatText('Saved one, not two.'),
    );
    await say(bot, 'note one and two');
    expect(events.filter((e) => e.type === 'approval_asked').map((e) => (e.type === 'approval_asked' ? e.call : ''))).toEqual(['w1', 'w2']);

    await say(bot, '/approve');
    await say(bot, '/approve w1');
    expect(target.requests).toEqual([]);
    await say(bot, '/deny w2');
    expect(operatorAnswers()).toEqual([
      'Several calls wait for approval here: `w1`, `w2`. Name the one you mean.',
      'Approved: `save_note` runs now once the other request of this step is answered.',
      'Denied: `save_note` will not run, and the model is told why.',
    ]);
    expect(target.requests.map((r) => r.body)).toEqual(['{"text":"one"}']);
    expect(toolResultsSent(fake, 1)).toEqual([
      { role: 'tool', tool_call_id: 'w1', content: 'ok' },
      { role: 'tool', tool_call_id: 'w2', content: 'Error: not run: denied by console:ada' },
    ]);
    expect(harness.current.replies()).toEqual(['Saved one, not two.']);
  });

  it('only the requester answers by default; someone else is told so and the call still waits', async () => {
    const { fake, target } = harness.current;
    const bot = new Intake(harness.current.deps(APPROVALS));
    fake.enqueue(chatToolCalls([{ id: 'w1', name: 'save_note', args: '{"text":"x"}' }]), chatText('Saved.'));
    await say(bot, 'note x');

    await say(bot, 'resume');
    expect(harness.current.events.at(-1)).toMatchObject({ notice: 'in_progress', text: expect.stringContaining('is waiting for approval of a tool call') as unknown });
    await say(bot, '/approve w1', 'mallory');
    expect(operatorAnswers()).toEqual(['Only the person who asked, or an admin, may answer this request.']);
    await say(bot, '/approve nope');
    expect(operatorAnswers().at(-1)).toBe('No call `nope` waits for approval here. Waiting: `w1`.');
    expect(target.requests).toEqual([]);
  });

  it('a request nobody answers is denied after tools.approval_timeout_minutes: the model is told, the channel once', async () => {
    const { fake, target, store, events } = harness.current;
    const bot = new Intake(harness.current.deps(APPROVALS));
    fake.enqueue(chatToolCalls([{ id: 'w1', name: 'save_note', args: '{"text":"x"}' }]), chatText('Nobody approved it, so I left it.'));
    await say(bot, 'note x');

    await store.clock.advance(29 * 60_000);
    await bot.announceResolutions('console');
    await settle(bot);
    expect(harness.current.replies()).toEqual([]);
    await store.clock.advance(60_000);
    await bot.announceResolutions('console');
    await settle(bot);
    await bot.announceResolutions('console');
    await settle(bot);

    expect(target.requests).toEqual([]);
    expect(toolResultsSent(fake, 1)).toEqual([
      { role: 'tool', tool_call_id: 'w1', content: 'Error: not run: denied by timeout: nobody approved this call in time. Do not propose it again unless the user asks.' },
    ]);
    expect(harness.current.replies()).toEqual(['Nobody approved it, so I left it.']);
    const told = events.filter((e) => e.type === 'message' && e.text.startsWith('Nobody answered the request'));
    expect(told).toHaveLength(1);
    expect(told[0]).toMatchObject({ text: 'Nobody answered the request to run `save_note` within 30 minutes, so it was denied; I told the model and go on without it.' });
  });

  it('without a store no request could be kept: a call that needs approval is refused, never run, and the turn goes on', async () => {
    const { fake, target } = harness.current;
    const bot = new Intake(harness.current.deps(APPROVALS, withoutDurability()));
    fake.enqueue(chatToolCalls([{ id: 'w1', name: 'save_note', args: '{"text":"x"}' }]), chatText('I could not save it.'));
    await say(bot, 'note x');

    expect(target.requests).toEqual([]);
    expect(toolResultsSent(fake, 1)).toEqual([
      { role: 'tool', tool_call_id: 'w1', content: 'Error: not run: this call needs a person’s approval, and without its store the bot cannot keep a request for one' },
    ]);
    expect(harness.current.replies()).toEqual(['I could not save it.']);
    await say(bot, '/approve');
    expect(operatorAnswers()).toEqual([TEXTS.storeOff]);
  });

  it('an override may ask for reads too, in its channels only', async () => {
    const { fake, target, events } = harness.current;
    const config = `${APPROVALS}overrides:\n  - match: { channel_ids: [c1] }\n    approval_defaults: { read: required, write: never }\n`;
    const bot = new Intake(harness.current.deps(config));
    fake.enqueue(chatToolCalls([{ id: 'r1', name: 'lookup', args: '{"word":"x"}' }]), chatText('Found.'), chatToolCalls([{ id: 'w1', name: 'save_note', args: '{"text":"x"}' }]), chatText('Saved.'));
    await say(bot, 'look x up');
    expect(events.filter((e) => e.type === 'approval_asked')).toHaveLength(1);
    expect(target.requests).toEqual([]);
    await say(bot, '/approve');
    await say(bot, 'note x');

    expect(harness.current.replies()).toEqual(['Found.', 'Saved.']);
    expect(target.requests.map((r) => r.method)).toEqual(['GET', 'POST']);
    expect(events.filter((e) => e.type === 'approval_asked')).toHaveLength(1);
  });

  it('a tool’s own `approval` wins over the default of its effect class', async () => {
    const { fake, target, events } = harness.current;
    const own =
      `    - name: drop_note\n      description: Drops a note.\n      method: DELETE\n      url: ${target.url}/notes/{id}\n      effect: write\n      approval: never\n` +
      '      parameters: { type: object, properties: { id: { type: string } }, required: [id] }\n';
    const bot = new Intake(harness.current.deps(own + APPROVALS));
    fake.enqueue(chatToolCalls([{ id: 'd1', name: 'drop_note', args: '{"id":"n1"}' }]), chatText('Dropped.'));
    await say(bot, 'drop note n1');

    expect(events.filter((e) => e.type === 'approval_asked')).toEqual([]);
    expect(target.requests.map((r) => `${r.method} ${r.path}`)).toEqual(['DELETE /notes/n1']);
    expect(harness.current.replies()).toEqual(['Dropped.']);
  });

  it('the same message arriving again is told that its request waits for approval, and nothing runs', async () => {
    const { fake, target } = harness.current;
    const bot = new Intake(harness.current.deps(APPROVALS));
    fake.enqueue(chatToolCalls([{ id: 'w1', name: 'save_note', args: '{"text":"x"}' }]));
    bot.submit(inboundFromText(harness.current.message('note x', 'ada', 'm-7')));
    await settle(bot);
    bot.submit(inboundFromText(harness.current.message('note x', 'ada', 'm-7')));
    await settle(bot);

    expect(harness.current.events.at(-1)).toMatchObject({ notice: 'in_progress', text: expect.stringContaining('is waiting for approval of a tool call') as unknown });
    expect(fake.requests).toHaveLength(1);
    expect(target.requests).toEqual([]);
  });

  it('a turn whose calls were answered goes on only where its channel is served, once', async () => {
    const { fake, target } = harness.current;
    const elsewhere = new Intake(harness.current.deps(APPROVALS, { served: { source: 'console', serves: () => Promise.resolve(false) } }));
    fake.enqueue(chatToolCalls([{ id: 'w1', name: 'save_note', args: '{"text":"x"}' }]), chatText('Saved.'));
    await say(elsewhere, 'note x');
    await say(elsewhere, '/approve');
    expect(target.requests).toEqual([]);

    const here = new Intake(harness.current.deps(APPROVALS));
    await here.announceResolutions('console');
    await settle(here);
    await here.announceResolutions('console');
    await settle(here);
    expect(target.requests).toHaveLength(1);
    expect(harness.current.replies()).toEqual(['Saved.']);
  });

  it('a store that fails as the turn parks for approval fails the turn plainly, and nothing ran', async () => {
    const { fake, target, store } = harness.current;
    const failing = storeWith(store.turns, 'awaitApproval', () => Promise.reject(new TurnStateUnavailable('await approval', new Error('disk I/O error'))));
    const bot = new Intake(harness.current.deps(APPROVALS, { store: failing }));
    fake.enqueue(chatToolCalls([{ id: 'w1', name: 'save_note', args: '{"text":"x"}' }]));
    await say(bot, 'note x');

    expect(harness.current.notices()).toEqual(['failed']);
    expect(harness.current.events.at(-1)).toMatchObject({ text: expect.stringContaining('I lost access to my storage') as unknown });
    expect(target.requests).toEqual([]);
  });

  it('a turn fenced out as it parks for approval leaves it to its new owner without a word', async () => {
    const { fake, target, store } = harness.current;
    const fenced = storeWith(store.turns, 'awaitApproval', (lease) => Promise.reject(new StaleTurnError(lease.turnId, 'await approval')));
    const bot = new Intake(harness.current.deps(APPROVALS, { store: fenced }));
    fake.enqueue(chatToolCalls([{ id: 'w1', name: 'save_note', args: '{"text":"x"}' }]));
    await say(bot, 'note x');

    expect(harness.current.notices()).toEqual([]);
    expect(harness.current.events.filter((e) => e.type === 'approval_asked')).toEqual([]);
    expect(target.requests).toEqual([]);
  });
});
