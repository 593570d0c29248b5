import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { anthropicErrorReply } from '../support/fake_llm/anthropic.js';
import { chatText, chatToolCalls } from '../support/fake_llm/openai_chat.js';
import { FakeLLMServer } from '../support/fake_llm/server.js';
import { OtlpReceiver, type ReceivedSpan } from '../support/otlp_receiver.js';
import { isNotice, isReply, runProgram, startJsonLinesProgram, type JsonLinesProgram } from '../support/program.js';
import { fallbackLlmSection, lookupToolItem, noteToolItem, useProgramServers } from '../support/program_servers.js';
import { useTempDir } from '../support/temp_dir.js';

const overloaded = anthropicErrorReply(529, 'overloaded_error', 'Overloaded');
const never = new Promise<void>(() => undefined);

const named = (name: string) => (span: ReceivedSpan) => span.name === name;
const eventNames = (span: ReceivedSpan | undefined): string[] => (span?.events ?? []).map((event) => event.name);

// Real processes: generous limits that only catch hangs.
describe('traces of turns sent to an OTLP collector, in the real program (DESIGN §10.3)', { timeout: 120_000 }, () => {
  const temp = useTempDir();
  const servers = useProgramServers();
  let primary: FakeLLMServer;
  let collector: OtlpReceiver;

  beforeEach(async () => {
    primary = await FakeLLMServer.start();
    collector = await OtlpReceiver.start();
  });
  afterEach(async () => {
    await primary.close();
    await collector.close();
  });

  /** Anthropic first and the OpenAI-compatible fake as its fallback, a `lookup` read and a `save_note` write on the target, traces to the collector. */
  function start(dir: string, options: { fault?: string; telemetry?: string } = {}): JsonLinesProgram {
    const { fake, target, track } = servers.current;
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      join(dir, 'config.yml'),
      `${fallbackLlmSection(primary.baseUrl, fake.baseUrl)}logging:
  level: info
  format: json
turn_state:
  continue_after_restart: false
  housekeeping_interval_seconds: 3600
telemetry:
  otlp_endpoint: ${collector.url}
  service_name: holdfast-test
${options.telemetry ?? ''}tools:
  builtin: []
  http:
${lookupToolItem(target.url)}${noteToolItem(target.url, 0.5)}`,
    );
    const env = { PATH: process.env['PATH'], ...(options.fault === undefined ? {} : { HOLDFAST_FAULT: options.fault }) };
    return track(startJsonLinesProgram(['--config', join(dir, 'config.yml')], { cwd: dir, env }));
  }

  /** Ends `bot` as an operator would, so that what it still buffers is exported. */
  async function stopped(bot: JsonLinesProgram): Promise<void> {
    bot.endInput();
    expect(await bot.exited).toBe(0);
  }

  it('shows a turn with an overload, a fallback, a read and a reply as one trace: the message, the turn, each generation and the call', async () => {
    const { fake, target } = servers.current;
    primary.enqueue(overloaded);
    fake.enqueue(chatToolCalls([{ id: 'r1', name: 'lookup', args: '{"word":"milk"}' }]), chatText('Milk is a drink.'));
    const bot = start(temp.path());
    await bot.waitFor((e) => e['type'] === 'ready');
    bot.send('What is milk?');
    expect(await bot.waitFor(isReply)).toMatchObject({ text: 'Milk is a drink.', model: 'local-llama' });
    await stopped(bot);

    const spans = await collector.waitFor((all) => all.some(named('holdfast.message')));
    const message = spans.find(named('holdfast.message'));
    const turn = spans.find(named('holdfast.turn'));
    expect(message).toMatchObject({ parentSpanId: '', service: 'holdfast-test', attributes: { 'holdfast.message.kind': 'message', 'holdfast.source': 'console' } });
    expect(turn).toMatchObject({
      traceId: message?.traceId,
      parentSpanId: message?.spanId,
      attributes: {
        'gen_ai.operation.name': 'invoke_agent',
        'holdfast.turn.short_id': expect.stringMatching(/^[0-9a-f-]{8}$/) as unknown,
        'holdfast.channel': expect.any(String) as unknown,
        'holdfast.turn.status': 'TERMINAL_COMPLETED',
        'holdfast.turn.effect': 'read',
        'holdfast.turn.calls': 1,
        'holdfast.reply.model': 'local-llama',
        'holdfast.reply.fallback': true,
      },
    });
    const children = collector.trace(message?.traceId ?? '').filter((span) => span.parentSpanId === turn?.spanId);
    expect(children.map((span) => span.name)).toEqual(['chat claude-main', 'execute_tool lookup', 'chat claude-main']);
    const [first, call, second] = children;
    expect(first?.attributes).toMatchObject({
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': 'openai',
      'gen_ai.request.model': 'local-llama',
      'gen_ai.response.model': 'test-model',
      'gen_ai.response.finish_reasons': ['tool_call'],
      'holdfast.attempts': 2,
    });
    expect(eventNames(first)).toEqual(['gen_ai.attempt', 'gen_ai.attempt.failed', 'holdfast.fallback', 'gen_ai.attempt']);
    expect(first?.events[1]?.attributes).toMatchObject({ 'error.type': 'capacity', 'gen_ai.request.model': 'claude-main', 'http.response.status_code': 529 });
    expect(first?.events[2]?.attributes).toEqual({ 'holdfast.fallback.from': 'claude-main', 'holdfast.fallback.to': 'local-llama', 'error.type': 'capacity' });
    // The primary's breaker opened: the next generation is refused there and goes to the fallback at once.
    expect(eventNames(second)).toEqual(['holdfast.breaker.refused', 'gen_ai.attempt']);
    expect(second?.attributes).toMatchObject({ 'gen_ai.request.model': 'local-llama', 'gen_ai.response.finish_reasons': ['stop'] });
    expect(call?.attributes).toMatchObject({ 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'lookup', 'gen_ai.tool.call.id': 'r1', 'holdfast.tool.effect': 'read' });
    expect(call?.events.map((event) => event.attributes['holdfast.ledger.state'])).toEqual(['PREPARED', 'APPLIED']);

    // The call carried the trace to the tool's server, as the call's own span.
    expect(target.requests[0]?.headers['traceparent']).toBe(`00-${call?.traceId}-${call?.spanId}-01`);
    // The turn's log lines lead to its trace.
    const lines = bot.stderr().split('\n');
    for (const marker of ['"from":"claude-main"', '"msg":"turn finished"']) {
      expect(JSON.parse(lines.find((line) => line.includes(marker)) ?? '{}'), marker).toMatchObject({ trace_id: turn?.traceId, span_id: turn?.spanId });
    }
    // Without include_content no text of the conversation leaves the bot.
    expect(JSON.stringify(spans)).not.toMatch(/What is milk|Milk is a drink/);
    collector.saveTree('overload-fallback-read', [message?.traceId ?? '']);
  });

  it('joins a turn killed mid-write and resumed after a verdict to its earlier trace by a link', async () => {
    const { fake, target } = servers.current;
    fake.enqueue(chatToolCalls([{ id: 'w1', name: 'save_note', args: '{"text":"buy milk"}' }]));
    primary.enqueue(overloaded);
    const dir = temp.path();
    const first = start(dir, { fault: 'after_wi2' });
    await first.waitFor((e) => e['type'] === 'ready');
    first.send('Note: buy milk');
    expect(await first.exited).toBeNull();
    expect(target.requests).toHaveLength(0);

    const again = start(dir);
    await again.waitFor((e) => e['type'] === 'ready');
    const turnId = String((await again.waitFor(isNotice('interrupted')))['turn']);
    // The restart's finding goes into the trace of the run it interrupted, under that run's turn span.
    await collector.waitFor((all) => all.some(named('holdfast.turn.interrupted')));
    const found = collector.spans.find(named('holdfast.turn.interrupted'));
    expect(found?.attributes).toMatchObject({ 'holdfast.turn.id': turnId, 'holdfast.turn.status': 'SUSPENDED' });
    expect(found?.events.map((event) => [event.name, event.attributes['holdfast.ledger.state']])).toEqual([['ledger.uncertain', 'OUTCOME_UNKNOWN']]);

    // The requester's resume finds the write uncertain and parks the turn for a verdict.
    again.send('resume');
    await again.waitFor(isNotice('manual_resolution'));
    primary.enqueue(overloaded);
    fake.enqueue(chatText('The note was not saved.'));
    const verdict = await runProgram(['turns', 'resolve', turnId.slice(0, 8), 'w1', '--not-applied', '--note', 'nothing was saved', '--config', join(dir, 'config.yml')], { cwd: dir });
    expect(verdict.status).toBe(0);
    expect(await again.waitFor(isReply)).toMatchObject({ turn: turnId, text: 'The note was not saved.' });
    await stopped(again);
    const finished = again
      .stderr()
      .split('\n')
      .filter((line) => line.includes('"msg":"turn finished"'))
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    const runs = (await collector.waitFor((all) => all.filter(named('holdfast.turn')).length === 2)).filter(named('holdfast.turn'));
    const [parked, answered] = runs;
    expect(parked?.attributes).toMatchObject({ 'holdfast.turn.id': turnId, 'holdfast.turn.started_by': 'requester', 'holdfast.turn.runs_before': 1, 'holdfast.turn.status': 'AWAITING_RESOLUTION' });
    expect(parked?.links).toEqual([{ traceId: found?.traceId, spanId: found?.parentSpanId }]);
    expect(answered?.attributes).toMatchObject({ 'holdfast.turn.id': turnId, 'holdfast.turn.started_by': 'automatic', 'holdfast.turn.runs_before': 2, 'holdfast.turn.status': 'TERMINAL_COMPLETED' });
    expect(answered?.links).toEqual([
      { traceId: found?.traceId, spanId: found?.parentSpanId },
      { traceId: parked?.traceId, spanId: parked?.spanId },
    ]);
    expect(new Set([found?.traceId, parked?.traceId, answered?.traceId]).size).toBe(3);
    expect(finished.map((line) => line['trace_id'])).toEqual([parked?.traceId, answered?.traceId]);
    const call = collector.trace(answered?.traceId ?? '').find(named('execute_tool save_note'));
    expect(call?.events.map((event) => [event.name, event.attributes['holdfast.ledger.state'], event.attributes['holdfast.ledger.by']])).toEqual([
      ['ledger.verdict', 'RESOLVED_NOT_APPLIED', expect.stringMatching(/^cli:/) as unknown],
    ]);
    expect(target.requests).toHaveLength(0);
    // The operator finds the turn's traces from the command line.
    const shown = await runProgram(['turns', 'show', turnId.slice(0, 8), '--json', '--config', join(dir, 'config.yml')], { cwd: dir });
    expect((JSON.parse(shown.stdout) as { turn: Record<string, unknown> }).turn['trace_ids']).toEqual([found?.traceId, parked?.traceId, answered?.traceId]);
    collector.saveTree('killed-mid-write-resumed-after-verdict', [found?.traceId ?? '', parked?.traceId ?? '', answered?.traceId ?? '']);
  });

  it('with include_content, carries the conversation on its spans with every secret scrubbed out', async () => {
    const { fake } = servers.current;
    fake.enqueue(chatToolCalls([{ id: 'r1', name: 'lookup', args: '{"word":"milk","api_key":"hunter2-hunter2"}' }]), chatText('Milk is a drink.'));
    primary.enqueue(overloaded);
    const bot = start(temp.path(), { telemetry: '  include_content: true\n' });
    await bot.waitFor((e) => e['type'] === 'ready');
    bot.send('What is milk? My token is ghp_abcdefghijklmnopqrstuvwxyz0123456789');
    await bot.waitFor(isReply);
    await stopped(bot);

    const spans = await collector.waitFor((all) => all.some(named('holdfast.message')));
    expect(spans.find(named('holdfast.message'))?.attributes['holdfast.message.text']).toBe('What is milk? My token is [REDACTED]');
    expect(spans.find(named('holdfast.turn'))?.attributes['holdfast.reply']).toBe('Milk is a drink.');
    const call = spans.find(named('execute_tool lookup'));
    expect(JSON.parse(String(call?.attributes['gen_ai.tool.call.arguments']))).toEqual({ word: 'milk', api_key: '[REDACTED]' });
    expect(call?.attributes['gen_ai.tool.call.result']).toBe('ok');
    expect(JSON.stringify(spans)).not.toMatch(/ghp_abcdef|hunter2|test-key/);
  });

  it('marks the span of a write whose outcome is unknown failed, its last move uncertain, and the turn waiting for a verdict', async () => {
    const { fake, target } = servers.current;
    target.reply({ hold: never });
    fake.enqueue(chatToolCalls([{ id: 'w1', name: 'save_note', args: '{"text":"open ticket"}' }]));
    primary.enqueue(overloaded);
    const bot = start(temp.path());
    await bot.waitFor((e) => e['type'] === 'ready');
    bot.send('Open a ticket');
    await bot.waitFor(isNotice('manual_resolution'));
    await stopped(bot);

    const spans = await collector.waitFor((all) => all.some(named('holdfast.message')));
    const call = spans.find(named('execute_tool save_note'));
    expect(call?.statusCode).toBe(2);
    expect(call?.events.map((event) => event.attributes['holdfast.ledger.state'])).toEqual(['PREPARED', 'RUNNING', 'OUTCOME_UNKNOWN']);
    expect(spans.find(named('holdfast.turn'))?.events.map((event) => event.name)).toEqual(['holdfast.turn.awaiting_resolution']);
  });
});
