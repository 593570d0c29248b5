import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { giveVerdict } from '../../src/conversation/operators/operator_actions.js';
import { chatText, chatToolCalls } from '../support/fake_llm/openai_chat.js';
import type { FakeLLMServer } from '../support/fake_llm/server.js';
import { ManualClock } from '../support/manual_clock.js';
import { isNotice, isReply, startJsonLinesProgram, type JsonLinesProgram } from '../support/program.js';
import { noteToolConfig, useProgramServers } from '../support/program_servers.js';
import { storeFileIn } from '../support/store_file.js';
import { useTempDir } from '../support/temp_dir.js';
import type { ToolTarget } from '../support/tool_target.js';
import { openStoreFileAt } from '../support/turn_store.js';

const never = new Promise<void>(() => undefined);

describe('the running bot tells the requester of a verdict by itself (DESIGN §9.1)', { timeout: 60_000 }, () => {
  const temp = useTempDir();
  const servers = useProgramServers();
  let fake: FakeLLMServer;
  let target: ToolTarget;
  beforeEach(() => {
    ({ fake, target } = servers.current);
  });

  function start(dir: string): JsonLinesProgram {
    const config = join(dir, 'config.yml');
    mkdirSync(dir, { recursive: true });
    writeFileSync(config, noteToolConfig(servers.current, 'logging:\n  level: warn\nturn_state:\n  housekeeping_interval_seconds: 0.2\n  auto_resume: true\n'));
    return servers.current.track(startJsonLinesProgram(['--config', config], { cwd: dir, env: { PATH: process.env['PATH'] } }));
  }

  it('a verdict recorded while the bot runs is announced within its housekeeping interval, and the turn goes on by itself with it', async () => {
    target.reply({ hold: never });
    fake.enqueue(chatToolCalls([{ id: 'w1', name: 'save_note', args: '{"text":"open ticket"}' }]));
    const dir = temp.path();
    const first = start(dir);
    await first.waitFor((e) => e['type'] === 'ready');
    target.onRequest = () => first.kill('SIGKILL');
    first.send('Open a ticket');
    await first.exited;
    target.onRequest = undefined;

    const again = start(dir);
    await again.waitFor(isNotice('interrupted'), 'the notice that the turn was interrupted');
    again.send('resume');
    const parked = await again.waitFor(isNotice('manual_resolution'), 'the turn parked for a verdict');
    const turn = String(parked['turn']);
    expect(parked['text']).toContain(`turn ${turn.slice(0, 8)}`);

    const operator = openStoreFileAt(storeFileIn(dir), { clock: new ManualClock({ wallStart: Date.now() }), baseDir: dir });
    fake.enqueue(chatText('Your ticket is T-42.'));
    const verdict = await giveVerdict(operator.operator, { turn: turn.slice(0, 8), call: 'w1', verdict: 'applied', text: 'ticket T-42 was created', by: 'cli:test' });
    await operator.close();
    expect(verdict).toMatchObject({ kind: 'recorded', remaining: 0 });

    expect(await again.waitFor(isNotice('resolved'), 'the resolved notice, without the user asking')).toMatchObject({
      turn,
      text: expect.stringContaining('took effect: ticket T-42 was created. I am continuing your request now.') as unknown,
    });
    expect(await again.waitFor(isReply, 'the reply built on the verdict')).toMatchObject({ text: 'Your ticket is T-42.' });
    const lastRequest = fake.requests.at(-1)?.body as { messages: { role: string; content: unknown }[] };
    expect(lastRequest.messages.at(-1)).toEqual({ role: 'tool', tool_call_id: 'w1', content: 'ticket T-42 was created' });
    expect(target.requests).toHaveLength(1);
  });
});
