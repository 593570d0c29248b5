import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { anthropicErrorReply, anthropicText } from '../support/fake_llm/anthropic.js';
import { chatText, chatToolCalls } from '../support/fake_llm/openai_chat.js';
import { FakeLLMServer } from '../support/fake_llm/server.js';
import { isReply, type JsonLinesProgram, startJsonLinesProgram, resumeAfterRestart } from '../support/program.js';
import { metricsUrlIn, sampleValue } from '../support/prometheus_text.js';
import { fallbackLlmSection, noteToolSection, useProgramServers } from '../support/program_servers.js';
import { useTempDir } from '../support/temp_dir.js';

const overloaded = anthropicErrorReply(529, 'overloaded_error', 'Overloaded');

// Real processes: generous limits that only catch hangs.
describe('a turn that moved to its fallback model, in the real program', { timeout: 120_000 }, () => {
  const temp = useTempDir();
  const servers = useProgramServers();
  let primaryServer: FakeLLMServer;

  beforeEach(async () => {
    primaryServer = await FakeLLMServer.start();
  });
  afterEach(() => primaryServer.close());

  /** Anthropic first, the OpenAI-compatible fake second, a `save_note` write tool, then `extra` YAML sections. */
  function start(dir: string, fault?: string, extra = ''): JsonLinesProgram {
    const { fake, target, track } = servers.current;
    const yaml = `${fallbackLlmSection(primaryServer.baseUrl, fake.baseUrl)}logging:
  level: info
  format: json
turn_state:
  continue_after_restart: false
${noteToolSection(target.url)}${extra}`;
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'config.yml'), yaml);
    const env = { PATH: process.env['PATH'], ...(fault === undefined ? {} : { HOLDFAST_FAULT: fault }) };
    return track(startJsonLinesProgram(['--config', join(dir, 'config.yml')], { cwd: dir, env }));
  }

  it('continues after a kill past the switch on whichever model is admitted, without running the tool again', async () => {
    const { fake, target } = servers.current;
    primaryServer.enqueue(overloaded);
    fake.enqueue(chatToolCalls([{ id: 'functions.save_note:0', name: 'save_note', args: '{"text":"buy milk"}' }]));
    const dir = temp.path();
    const first = start(dir, 'after_wi4');
    await first.waitFor((e) => e['type'] === 'ready');
    first.send('Note: buy milk');
    expect(await first.exited).toBeNull();
    expect(target.requests).toHaveLength(1);

    // A new process knows nothing of the overload: the primary is asked first, and it has recovered.
    primaryServer.enqueue(anthropicText('Your note is saved.'));
    const again = await resumeAfterRestart(start(dir));
    expect(await again.waitFor(isReply)).toEqual({ type: 'message', turn: expect.any(String) as unknown, kind: 'reply', text: 'Your note is saved.', model: 'claude-main' });
    expect(target.requests).toHaveLength(1);
    expect(fake.requests).toHaveLength(1);
    const resumed = primaryServer.requests.at(-1)?.body as { messages: { role: string; content: { type: string; tool_use_id?: string; content?: string }[] }[] };
    expect(resumed.messages.at(-1)?.content).toEqual([{ type: 'tool_result', tool_use_id: expect.stringMatching(/^functions_save_note_0_[0-9a-f]{12}$/) as unknown, content: 'ok', is_error: false }]);
  });

  it('names the fallback as the writer of a reply it wrote before the kill, taken from the log without asking any model', async () => {
    const { fake } = servers.current;
    primaryServer.enqueue(overloaded);
    fake.enqueue(chatText('Milk is a drink.'));
    const dir = temp.path();
    const first = start(dir, 'after_final_reply');
    await first.waitFor((e) => e['type'] === 'ready');
    first.send('What is milk?');
    expect(await first.exited).toBeNull();

    const again = await resumeAfterRestart(start(dir));
    expect(await again.waitFor(isReply)).toMatchObject({ text: 'Milk is a drink.', model: 'local-llama' });
    expect(primaryServer.requests).toHaveLength(1);
    expect(fake.requests).toHaveLength(1);
  });

  it('names the fallback as the writer of a reply stored just before a kill and printed at the next start', async () => {
    const { fake } = servers.current;
    primaryServer.enqueue(overloaded);
    fake.enqueue(chatText('Milk is a drink.'));
    const dir = temp.path();
    const first = start(dir, 'after_completion', 'metrics:\n  listen: 127.0.0.1:0\n');
    await first.waitFor((e) => e['type'] === 'ready');
    first.send('What is milk?');
    expect(await first.exited).toBeNull();
    expect(first.events.filter(isReply)).toEqual([]);

    const again = start(dir);
    expect(await again.waitFor(isReply)).toMatchObject({ text: 'Milk is a drink.', model: 'local-llama' });
    again.endInput();
    expect(await again.exited).toBe(0);
    expect(primaryServer.requests).toHaveLength(1);
    expect(fake.requests).toHaveLength(1);
  });

  it('logs the switch once and counts it in holdfast_fallbacks_total, with every model metered', async () => {
    const { fake } = servers.current;
    primaryServer.enqueue(overloaded);
    fake.enqueue(chatText('Milk is a drink.'));
    const dir = temp.path();
    const bot = start(dir, undefined, 'metrics:\n  listen: 127.0.0.1:0\n');
    await bot.waitFor((e) => e['type'] === 'ready');
    await bot.logged('health at /healthz and /readyz"}');
    const url = metricsUrlIn(bot.stderr());
    bot.send('What is milk?');
    expect(await bot.waitFor(isReply)).toMatchObject({ text: 'Milk is a drink.', model: 'local-llama' });
    const switches = bot
      .stderr()
      .split('\n')
      .filter((line) => line.includes('"from":"claude-main"'))
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(switches).toEqual([
      expect.objectContaining({ level: 30, turn: expect.any(String) as unknown, from: 'claude-main', to: 'local-llama', why: expect.stringContaining('overloaded') as unknown }),
    ]);
    const text = await (await fetch(`${url ?? ''}/metrics`)).text();
    expect(sampleValue(text, 'holdfast_fallbacks_total', { from: 'claude-main', to: 'local-llama' })).toBe(1);
    expect(sampleValue(text, 'holdfast_model_attempts_total', { provider: 'anthropic', model: 'claude-main', result: 'capacity' })).toBe(1);
    expect(sampleValue(text, 'holdfast_model_attempts_total', { provider: 'openai', model: 'local-llama', result: 'ok' })).toBe(1);
    expect(sampleValue(text, 'holdfast_breaker_open', { provider: 'anthropic', model: 'claude-main' })).toBe(1);
    expect(sampleValue(text, 'holdfast_breaker_open', { provider: 'openai', model: 'local-llama' })).toBe(0);
  });
});
