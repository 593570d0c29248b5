import { beforeEach, describe, expect, it } from 'vitest';
import { inboundFromText } from '../../src/conversation/notices/channel_commands.js';
import { Intake } from '../../src/conversation/turns/intake.js';
import { chargeToolYaml } from '../support/engine_harness.js';
import { chatText, chatToolCalls } from '../support/fake_llm/openai_chat.js';
import type { FakeLLMServer } from '../support/fake_llm/server.js';
import { useConversationHarness } from '../support/conversation_harness.js';
import { LEVEL, LogLines, type LogLine } from '../support/log_lines.js';
import { runToCompletion } from '../support/recovery_runtime.js';
import type { ToolTarget } from '../support/tool_target.js';

describe('a call whose outcome becomes unknown while its turn runs', () => {
  const harness = useConversationHarness();
  let fake: FakeLLMServer;
  let target: ToolTarget;
  let log: LogLines;
  beforeEach(() => {
    ({ fake, target } = harness.current);
    log = new LogLines('info');
  });

  async function run(text: string, extraConfig = ''): Promise<string> {
    const bot = new Intake(harness.current.deps(extraConfig, { logger: log.logger }));
    bot.submit(inboundFromText(harness.current.message(text, 'ada')));
    await runToCompletion(harness.current.recoveryClock, bot.idle());
    const turn = harness.current.events.find((event) => event.type === 'turn');
    if (turn?.type !== 'turn') throw new Error('no turn ran');
    return turn.turn;
  }

  const warnings = (): LogLine[] => log.lines.filter((line) => line.level === LEVEL.warn);

  it('is logged once at WARN with whose call it was and its scrubbed input, saying an operator must resolve a write; parking it for a verdict is one more', async () => {
    target.reply({ hold: new Promise<void>(() => undefined) });
    target.onRequest = () => harness.current.store.clock.advance(5_000);
    fake.enqueue(chatToolCalls([{ id: 'c1', name: 'save_note', args: JSON.stringify({ text: 'remember token=hunter2-secret-value' }) }]), chatText('never asked'));
    const turn = await run('note my token');

    expect(warnings()).toEqual([
      expect.objectContaining({
        turn,
        channel: 'c1',
        requester: 'ada',
        tool: 'save_note',
        effect: 'write',
        input: { text: 'remember token=[REDACTED]' },
        call: 'c1',
        step: 1,
        error: expect.stringContaining('timed out after 5 s') as unknown,
        msg: expect.stringMatching(/^the outcome of tool call c1 \(save_note\) is unknown: .*an operator must check whether it took effect and resolve it$/) as unknown,
      }),
      expect.objectContaining({
        turn,
        tool: 'save_note',
        call: 'c1',
        input: { text: 'remember token=[REDACTED]' },
        command: expect.stringMatching(/^holdfast turns resolve t-1 c1 --applied/) as unknown,
      }),
    ]);
    expect(JSON.stringify(log.lines)).not.toContain('hunter2');
  });

  it('says an idempotent call is sent again with the same key', async () => {
    target.reply({ status: 503, body: 'busy' });
    fake.enqueue(chatToolCalls([{ id: 'k1', name: 'charge', args: '{"cents":500}' }]), chatText('Charged.'));
    const turn = await run('charge 5', chargeToolYaml(target.url, 5));

    expect(warnings()).toEqual([
      expect.objectContaining({
        turn,
        requester: 'ada',
        tool: 'charge',
        effect: 'idempotent',
        input: { cents: 500 },
        call: 'k1',
        step: 1,
        msg: expect.stringMatching(/sent again with the same idempotency key/) as unknown,
      }),
    ]);
    expect(harness.current.replies()).toEqual(['Charged.']);
  });
});
