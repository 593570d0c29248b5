import { beforeEach, describe, expect, it } from 'vitest';
import { chatText, chatToolCalls } from '../support/fake_llm/openai_chat.js';
import type { FakeLLMServer } from '../support/fake_llm/server.js';
import { familiesOf, metricsUrlIn, sampleValue, sampleValuesBy } from '../support/prometheus_text.js';
import { isReply, runProgram, startJsonLinesProgram, type JsonLinesProgram } from '../support/program.js';
import { noteToolConfig, useProgramServers } from '../support/program_servers.js';
import { useTempDir } from '../support/temp_dir.js';
import type { ToolTarget } from '../support/tool_target.js';

const isApproval = (event: Record<string, unknown>): boolean => event['type'] === 'approval';

async function scrape(bot: JsonLinesProgram): Promise<string> {
  await bot.logged('health at /healthz and /readyz"}');
  const url = metricsUrlIn(bot.stderr());
  if (url === undefined) throw new Error(`no metrics url in the log:\n${bot.stderr()}`);
  return (await fetch(`${url}/metrics`)).text();
}

// Real processes: generous limits that only catch hangs.
describe('approval before a write, answered beside the running bot (DESIGN §9.2)', { timeout: 90_000 }, () => {
  const temp = useTempDir();
  const servers = useProgramServers();
  let fake: FakeLLMServer;
  let target: ToolTarget;
  beforeEach(() => {
    ({ fake, target } = servers.current);
  });

  it('`holdfast turns approve` from another process lets the write run once and the turn go on by itself; the bot counts the answers it records', async () => {
    const dir = temp.path();
    const config = temp.write(
      'config.yml',
      noteToolConfig(servers.current, 'logging:\n  level: info\n  format: json\nturn_state:\n  housekeeping_interval_seconds: 3600\nmetrics:\n  listen: 127.0.0.1:0\n').replace(
        'tools:\n',
        'tools:\n  approval_defaults:\n    write: required\n',
      ),
    );
    const bot = servers.current.track(startJsonLinesProgram(['--config', config], { cwd: dir }));
    await bot.waitFor((e) => e['type'] === 'ready', 'the bot to be ready');
    const before = await scrape(bot);
    expect(sampleValuesBy(before, 'holdfast_approvals_total', 'verdict', ['approved', 'denied', 'expired'])).toEqual({ approved: 0, denied: 0, expired: 0 });
    expect(familiesOf(before).get('holdfast_approval_wait_seconds')).toBe('histogram');

    fake.enqueue(chatToolCalls([{ id: 'w1', name: 'save_note', args: '{"text":"buy milk"}' }]), chatText('I saved the note.'));
    bot.send('note: buy milk');
    const asked = await bot.waitFor(isApproval, 'the request for approval');
    expect(target.requests).toHaveLength(0);

    const approved = await runProgram(['turns', 'approve', String(asked['turn']).slice(0, 8), 'w1', '--config', config], { cwd: dir });
    expect(approved.stderr).toBe('');
    expect(approved.status).toBe(0);
    expect(await bot.waitFor(isReply, 'the reply, without anyone asking again')).toMatchObject({ turn: asked['turn'], text: 'I saved the note.' });
    expect(target.requests.map((request) => request.body)).toEqual(['{"text":"buy milk"}']);

    fake.enqueue(chatToolCalls([{ id: 'w2', name: 'save_note', args: '{"text":"sell the cow"}' }]), chatText('I did not save it.'));
    bot.send('note: sell the cow');
    await bot.waitFor((e) => isApproval(e) && e['call'] === 'w2', 'the second request for approval');
    bot.send('/deny w2 not the cow');
    expect(await bot.waitFor((e) => isReply(e) && e['text'] === 'I did not save it.', 'the reply after the denial')).toBeDefined();
    expect(target.requests).toHaveLength(1);

    // The command line's answer was recorded by another process, which counts nothing; the bot counted its own.
    const after = await scrape(bot);
    expect(sampleValuesBy(after, 'holdfast_approvals_total', 'verdict', ['approved', 'denied', 'expired'])).toEqual({ approved: 0, denied: 1, expired: 0 });
    expect(sampleValue(after, 'holdfast_approval_wait_seconds_count')).toBe(1);
    bot.endInput();
    expect(await bot.exited).toBe(0);
  });
});
