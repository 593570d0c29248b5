import { readFileSync } from 'node:fs';
import { type AddressInfo, createServer } from 'node:net';
import { beforeEach, describe, expect, it } from 'vitest';
import { chatText, chatToolCalls } from '../support/fake_llm/openai_chat.js';
import type { FakeLLMServer } from '../support/fake_llm/server.js';
import { familiesOf, metricsUrlIn, sampleValue, sampleValuesBy } from '../support/prometheus_text.js';
import { isReply, runProgram, startJsonLinesProgram, whenReading, type JsonLinesProgram } from '../support/program.js';
import { lookupToolItem, useProgramServers } from '../support/program_servers.js';
import { useTempDir } from '../support/temp_dir.js';
import type { ToolTarget } from '../support/tool_target.js';

const turnStatus = (status: string) => (event: Record<string, unknown>) => event['type'] === 'turn' && event['status'] === status;

/** Where the program said its metrics server listens, once it said so. */
async function metricsUrl(bot: JsonLinesProgram): Promise<string> {
  // The end of the line: once it is logged, the whole line is.
  await bot.logged('health at /healthz and /readyz"}');
  const url = metricsUrlIn(bot.stderr());
  if (url === undefined) throw new Error(`no metrics url in the log:\n${bot.stderr()}`);
  return url;
}

async function get(url: string): Promise<{ status: number; body: string }> {
  const response = await fetch(url);
  return { status: response.status, body: await response.text() };
}

// Real processes: generous limits that only catch hangs.
describe('the program serving metrics and health checks', { timeout: 60_000 }, () => {
  const temp = useTempDir();
  const servers = useProgramServers();
  const track = (program: JsonLinesProgram): JsonLinesProgram => servers.current.track(program);
  let fake: FakeLLMServer;
  let target: ToolTarget;
  beforeEach(() => {
    ({ fake, target } = servers.current);
  });

  function configFile(extra = ''): string {
    return temp.write(
      'config.yml',
      `llm:
  provider: openai
  base_url: ${fake.baseUrl}
  model: test-model
logging:
  level: info
  format: json
tools:
  builtin: []
  http:
${lookupToolItem(target.url)}${extra}`,
    );
  }

  it('serves every metric at /metrics while it runs a turn that calls a tool, answers /healthz and /readyz, and exits 0 at the end of input', async () => {
    fake.enqueue(chatToolCalls([{ id: 'c1', name: 'lookup', args: '{"word":"milk"}' }]), chatText('Milk is a drink.'));
    const bot = track(startJsonLinesProgram(['--config', configFile('metrics:\n  listen: 127.0.0.1:0\n')], { cwd: temp.path() }));
    await whenReading(bot);
    const url = await metricsUrl(bot);
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:[1-9]\d*$/);
    expect(await get(`${url}/healthz`)).toEqual({ status: 200, body: '{"live":true}\n' });
    expect(await get(`${url}/readyz`)).toEqual({ status: 200, body: '{"ready":true}\n' });

    bot.send('What is milk?');
    await bot.waitFor(isReply);
    await bot.waitFor(turnStatus('TERMINAL_COMPLETED'));
    const scraped = await get(`${url}/metrics`);
    expect(scraped.status).toBe(200);
    const text = scraped.body;

    expect(sampleValuesBy(text, 'holdfast_turns_total', 'status', ['completed', 'failed', 'cancelled', 'rejected', 'expired'])).toEqual({
      completed: 1,
      failed: 0,
      cancelled: 0,
      rejected: 0,
      expired: 0,
    });
    expect(sampleValue(text, 'holdfast_tool_calls_total', { tool: 'lookup', effect: 'read', outcome: 'applied' })).toBe(1);
    expect(sampleValue(text, 'holdfast_model_attempts_total', { provider: 'openai', model: 'test-model', result: 'ok' })).toBe(2);
    expect(sampleValue(text, 'holdfast_store_write_seconds_count')).toBeGreaterThan(0);
    expect(sampleValue(text, 'holdfast_breaker_open', { provider: 'openai', model: 'test-model' })).toBe(0);
    expect(sampleValuesBy(text, 'holdfast_turns', 'state', ['active', 'suspended', 'awaiting_resolution'])).toEqual({ active: 0, suspended: 0, awaiting_resolution: 0 });
    expect(sampleValue(text, 'holdfast_calls_awaiting_verdict')).toBe(0);
    // The console confirms the reply just after printing it: either count is right at this instant.
    expect([0, 1]).toContain(sampleValue(text, 'holdfast_replies_pending'));
    const families = familiesOf(text);
    expect(
      Object.fromEntries(
        [
          'holdfast_turns_total',
          'holdfast_turns',
          'holdfast_tool_calls_total',
          'holdfast_calls_awaiting_verdict',
          'holdfast_model_attempts_total',
          'holdfast_breaker_open',
          'holdfast_store_write_seconds',
          'holdfast_replies_pending',
        ].map((name) => [name, families.get(name)]),
      ),
    ).toEqual({
      holdfast_turns_total: 'counter',
      holdfast_turns: 'gauge',
      holdfast_tool_calls_total: 'counter',
      holdfast_calls_awaiting_verdict: 'gauge',
      holdfast_model_attempts_total: 'counter',
      holdfast_breaker_open: 'gauge',
      holdfast_store_write_seconds: 'histogram',
      holdfast_replies_pending: 'gauge',
    });
    for (const name of ['nodejs_eventloop_lag_seconds', 'nodejs_eventloop_lag_p99_seconds', 'process_cpu_user_seconds_total', 'process_resident_memory_bytes', 'nodejs_heap_size_used_bytes']) {
      expect(families.has(name), name).toBe(true);
    }

    bot.endInput();
    expect(await bot.exited).toBe(0);
    await expect(fetch(`${url}/healthz`)).rejects.toThrow();
  });

  it('counts the tokens each model call reported, their cost by llm.prices, and each message refused by a limit', async () => {
    fake.enqueue(
      chatToolCalls([{ id: 'c1', name: 'lookup', args: '{"word":"milk"}' }], { usage: { prompt_tokens: 1000, completion_tokens: 100 } }),
      chatText('Milk is a drink.', { usage: { prompt_tokens: 1200, completion_tokens: 50 } }),
    );
    const extra = 'metrics:\n  listen: 127.0.0.1:0\nlimits:\n  per_user: { turns_per_hour: 1 }\n';
    const priced = readFileSync(configFile(extra), 'utf8').replace('  model: test-model\n', '  model: test-model\n  prices:\n    test-model: { input: 1, output: 2 }\n');
    const bot = track(startJsonLinesProgram(['--config', temp.write('config.yml', priced)], { cwd: temp.path() }));
    await whenReading(bot);
    const url = await metricsUrl(bot);

    bot.send('What is milk?');
    await bot.waitFor(turnStatus('TERMINAL_COMPLETED'));
    bot.send('And cheese?');
    await bot.waitFor((event) => event['type'] === 'message' && event['notice'] === 'limited', 'the refusal');
    const text = (await get(`${url}/metrics`)).body;

    expect(sampleValue(text, 'holdfast_tokens_total', { model: 'test-model', kind: 'input' })).toBe(2200);
    expect(sampleValue(text, 'holdfast_tokens_total', { model: 'test-model', kind: 'output' })).toBe(150);
    expect(sampleValue(text, 'holdfast_cost_total', { model: 'test-model' })).toBeCloseTo((2200 * 1 + 150 * 2) / 1_000_000, 12);
    expect(sampleValue(text, 'holdfast_limit_refusals_total', { scope: 'user', limit: 'turns_per_hour' })).toBe(1);
    expect(fake.requests).toHaveLength(2);
    bot.endInput();
    expect(await bot.exited).toBe(0);
  });

  it('answers /readyz 503 naming the store when turns are not durable, and still /healthz 200', async () => {
    const bot = track(startJsonLinesProgram(['--config', configFile('metrics:\n  listen: 127.0.0.1:0\nturn_state:\n  enabled: false\n')], { cwd: temp.path() }));
    await whenReading(bot);
    const url = await metricsUrl(bot);
    expect(await get(`${url}/readyz`)).toEqual({ status: 503, body: '{"ready":false,"not_ready":["store"]}\n' });
    expect((await get(`${url}/healthz`)).status).toBe(200);
    bot.endInput();
    expect(await bot.exited).toBe(0);
  });

  it('exits 2 with one line naming the address and the cause when the port is taken', async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const { port } = taken.address() as AddressInfo;
    try {
      const run = await runProgram(['--console', '--jsonl', '--config', configFile(`metrics:\n  listen: 127.0.0.1:${port}\n`)], { cwd: temp.path() });
      expect(run.status).toBe(2);
      expect(run.stderr).toMatch(new RegExp(`^holdfast: metrics\\.listen 127\\.0\\.0\\.1:${port}: cannot listen there: listen EADDRINUSE: address already in use 127\\.0\\.0\\.1:${port}$`, 'm'));
      expect(run.stderr).not.toMatch(/\n\s+at /);
      expect(run.stdout).toBe('');
    } finally {
      await new Promise<void>((resolve) => taken.close(() => resolve()));
    }
  });
});
