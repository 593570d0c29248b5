import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseConfigText } from '../../src/app/config_schema.js';
import { toolDefinitions } from '../../src/tools/catalog.js';
import { McpServers } from '../../src/tools/mcp/mcp_servers.js';
import { runTool } from '../../src/tools/run_tool.js';
import type { Tool, ToolContext } from '../../src/tools/tool.js';
import { deferred } from '../support/deferred.js';
import { LEVEL, LogLines } from '../support/log_lines.js';
import { ManualClock } from '../support/manual_clock.js';
import { McpTarget } from '../support/mcp_target.js';
import { useTempDir } from '../support/temp_dir.js';

const never = new Promise<void>(() => undefined);

describe('MCP tools of a Streamable HTTP server', () => {
  const temp = useTempDir();
  let target: McpTarget;
  let clock: ManualClock;
  let logs: LogLines;
  let servers: McpServers | undefined;

  beforeEach(async () => {
    target = await McpTarget.start();
    clock = new ManualClock();
    logs = new LogLines('debug');
  });
  afterEach(async () => {
    await servers?.close();
    servers = undefined;
    await target.close();
  });

  async function start(extra = ''): Promise<McpServers> {
    const config = parseConfigText(`tools:\n  builtin: []\n  mcp:\n    - name: target\n      url: ${target.url}\n${extra}`, 'c.yml', {});
    servers = await McpServers.start(config.tools.mcp, { cwd: temp.path(), clock, logger: logs.logger });
    return servers;
  }

  function tool(name: string): Tool {
    const found = servers?.tools().find((entry) => entry.name === `target__${name}`);
    if (found === undefined) throw new Error(`no tool target__${name}`);
    return found;
  }

  const context = (signal = new AbortController().signal): ToolContext => ({
    signal,
    idempotencyKey: 'hf_0123456789abcdef',
    requesterId: 'ada',
    channel: { source: 'console', channelId: 'c1' },
    logger: pino({ level: 'silent' }),
  });
  const run = (name: string, signal?: AbortSignal) => runTool(tool(name), { text: 'hi' }, context(signal), clock);

  it('offers each tool as <server>__<tool> with its description and schema, its effect class read from its annotations', async () => {
    const listed = (await start()).tools();
    expect(listed.map((entry) => [entry.name, entry.effect])).toEqual([
      ['target__bare', 'write'],
      ['target__empty_hints', 'write'],
      ['target__reader', 'read'],
      ['target__repeater', 'idempotent'],
      ['target__steady_reader', 'read'],
      ['target__eraser', 'write'],
      ['target__steady_eraser', 'idempotent'],
      ['target__said_no', 'write'],
      ['target__reader_said_destructive', 'read'],
    ]);
    expect(toolDefinitions(listed)[2]).toEqual({ name: 'target__reader', description: 'The reader tool.', inputSchema: { type: 'object', properties: { text: { type: 'string' } } } });
  });

  it('lets the configuration override the effect class of a tool, and warns about an override naming no tool', async () => {
    const listed = (await start('      effects: { bare: read, reader: write, steady_eraser: write, missing: read }\n')).tools();
    expect(Object.fromEntries(listed.map((entry) => [entry.name, entry.effect]))).toMatchObject({
      target__bare: 'read',
      target__reader: 'write',
      target__steady_eraser: 'write',
      target__repeater: 'idempotent',
    });
    expect(logs.withMessage('tools.mcp effects name tools that MCP server target does not list')).toMatchObject([{ level: LEVEL.warn, effects: ['missing'] }]);
  });

  it('sends an idempotent call its stable key in _meta, and other calls none', async () => {
    await start();
    expect(await run('repeater')).toEqual({ kind: 'result', text: 'repeater done' });
    expect(await run('bare')).toEqual({ kind: 'result', text: 'bare done' });
    expect(await run('reader')).toEqual({ kind: 'result', text: 'reader done' });
    expect(target.calls.map((call) => [call.tool, call.meta, call.arguments])).toEqual([
      ['repeater', { 'holdfast/idempotency_key': 'hf_0123456789abcdef' }, { text: 'hi' }],
      ['bare', undefined, { text: 'hi' }],
      ['reader', undefined, { text: 'hi' }],
    ]);
  });

  it('sends each call’s trace context in its _meta, beside an idempotency key, and as the traceparent header of the request carrying it, calls in flight at once each with its own', async () => {
    const first = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
    const second = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-00';
    await start();
    const released = deferred();
    target.answer({ hold: released.promise }, { hold: released.promise }, { hold: released.promise });
    const calls = [
      runTool(tool('repeater'), { text: 'hi' }, { ...context(), traceparent: first }, clock),
      runTool(tool('bare'), { text: 'hi' }, { ...context(), traceparent: second }, clock),
      run('reader'),
    ];
    await target.whenCalls(3);
    released.resolve();
    expect(await Promise.all(calls)).toEqual([
      { kind: 'result', text: 'repeater released' },
      { kind: 'result', text: 'bare released' },
      { kind: 'result', text: 'reader released' },
    ]);
    const seen = Object.fromEntries(target.calls.map((call) => [call.tool, [call.meta, call.headers.traceparent]]));
    expect(seen).toEqual({
      repeater: [{ 'holdfast/idempotency_key': 'hf_0123456789abcdef', traceparent: first }, first],
      bare: [{ traceparent: second }, second],
      reader: [undefined, undefined],
    });
  });

  it('sends no trace context with starting the session, listing tools or anything but a call that has one', async () => {
    await start();
    await target.whenListening(1);
    await runTool(tool('reader'), { text: 'hi' }, { ...context(), traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01' }, clock);
    await target.addTool({ name: 'newcomer' });
    await logs.whenMessage('MCP server target changed its tools');
    expect(target.httpRequests.filter((request) => request.headers.traceparent !== undefined)).toEqual([
      expect.objectContaining({ method: 'POST', headers: expect.objectContaining({ traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01' }) as unknown }),
    ]);
  });

  it('reports a result marked isError as a failure with its text, and names the parts that are not text', async () => {
    await start();
    target.answer(
      { result: { isError: true, content: [{ type: 'text', text: 'no such entity: Ada' }] } },
      {
        result: {
          content: [
            { type: 'text', text: 'A chart:' },
            { type: 'image', data: 'iVBORw0KGgo=', mimeType: 'image/png' },
            { type: 'resource_link', uri: 'file:///tmp/chart.png', name: 'chart.png' },
          ],
        },
      },
    );
    expect(await run('bare')).toEqual({ kind: 'failed', error: 'no such entity: Ada' });
    expect(await run('reader')).toEqual({ kind: 'result', text: 'A chart:\n\n[image, image/png]\n\n[resource link: file:///tmp/chart.png (chart.png)]' });
  });

  it('takes up a new tool list when the server says its list changed', async () => {
    await start();
    await target.whenListening(1);
    await target.addTool({ name: 'newcomer', annotations: { readOnlyHint: true } });
    await logs.whenMessage('MCP server target changed its tools');
    expect(tool('newcomer').effect).toBe('read');
    expect(await run('newcomer')).toEqual({ kind: 'result', text: 'newcomer done' });
  });

  it('cuts a result or an error longer than max_result_bytes on a whole character, with a note the model reads, and logs its whole size', async () => {
    await start('      max_result_bytes: 1025\n');
    // Two bytes a character: the cut falls inside one, and moves back before it.
    target.answer({ result: { content: [{ type: 'text', text: 'é'.repeat(3_000) }] } }, { result: { content: [{ type: 'text', text: 'x'.repeat(2_000) }], isError: true } });
    const withLog = { ...context(), logger: logs.logger };

    expect(await runTool(tool('reader'), { text: 'hi' }, withLog, clock)).toEqual({
      kind: 'result',
      text: `${'é'.repeat(512)}\n[truncated: the result was cut at 1025 bytes; 4975 more bytes were left out]`,
    });
    expect(await runTool(tool('bare'), { text: 'hi' }, withLog, clock)).toEqual({
      kind: 'failed',
      error: `${'x'.repeat(1_025)}\n[truncated: the error was cut at 1025 bytes; 975 more bytes were left out]`,
    });
    expect(logs.withMessage('the answer of target__reader was cut to max_result_bytes')).toMatchObject([{ level: LEVEL.info, tool: 'target__reader', bytes: 6_000, limit: 1_025 }]);
    expect(logs.withMessage('the answer of target__bare was cut to max_result_bytes')).toMatchObject([{ bytes: 2_000 }]);
  });

  it('cancels a call past its timeout: the server is told, a read fails and a write is uncertain', async () => {
    await start('      timeout_seconds: 5\n');
    target.answer({ hold: never }, { hold: never });
    const read = run('reader');
    await target.whenCalls(1);
    await clock.advance(5_000);
    expect(await read).toEqual({ kind: 'failed', error: 'target__reader timed out after 5 s; MCP server target was told to cancel it.' });
    const write = run('bare');
    await target.whenCalls(2);
    await clock.advance(5_000);
    expect(await write).toEqual({ kind: 'uncertain', error: 'target__bare timed out after 5 s; MCP server target was told to cancel it: the change may or may not have happened.' });
    await target.whenCancelled(2);
    expect(target.cancelled).toEqual(['reader', 'bare']);
  });

  it('reports a call cut off by the server dying as uncertain, answers with an error while it is down, and starts it again on next use after the backoff', async () => {
    await start();
    target.answer({ hold: never });
    const cut = run('bare');
    await logs.whenMessage('MCP server log message');
    await target.die();
    expect(await cut).toMatchObject({
      kind: 'uncertain',
      error: expect.stringMatching(/^target__bare was cut off while running \(MCP server target: .+\): the call may or may not have taken effect\.$/) as unknown,
    });
    expect((await logs.whenMessage('MCP server target stopped; it is started again on next use')).level).toBe(LEVEL.warn);

    await target.revive();
    expect(await run('reader')).toMatchObject({
      kind: 'failed',
      error: expect.stringMatching(/^MCP server target is not running: it stopped: .+; it is restarted on next use\. The call to target__reader was not sent\.$/) as unknown,
    });
    expect(target.calls).toHaveLength(1);

    await clock.advance(1_000);
    expect(await run('reader')).toEqual({ kind: 'result', text: 'reader done' });
    expect(target.calls.map((call) => call.tool)).toEqual(['bare', 'reader']);
  });

  it('waits longer after each failure in a row before starting the server again', async () => {
    await start();
    await target.whenListening(1);
    await target.die();
    await logs.whenMessage('MCP server target stopped; it is started again on next use');
    expect(await run('reader')).toMatchObject({ kind: 'failed', error: expect.stringContaining('MCP server target is not running: it stopped: ') as unknown });
    await clock.advance(1_000);
    expect(await run('reader')).toMatchObject({ kind: 'failed', error: expect.stringContaining('MCP server target is not running: it could not start: ') as unknown });
    expect(logs.withMessage('MCP server target failed to start; its tools answer with an error until it is started again on next use')).toMatchObject([{ level: LEVEL.error, retryAfterSeconds: 2 }]);
    await target.revive();
    await clock.advance(1_999);
    expect(await run('reader')).toMatchObject({ kind: 'failed', error: expect.stringContaining('is not running') as unknown });
    await clock.advance(1);
    expect(await run('reader')).toEqual({ kind: 'result', text: 'reader done' });
    expect(logs.withMessage('MCP server target started')).toHaveLength(2);
  });

  it('sends nothing for a call stopped before it was sent', async () => {
    await start();
    const stop = new AbortController();
    stop.abort();
    expect(await run('bare', stop.signal)).toEqual({ kind: 'failed', error: 'The call to target__bare was stopped before it was sent: nothing happened.' });
    expect(target.calls).toEqual([]);
    const released = deferred();
    target.answer({ hold: released.promise });
    const held = run('bare');
    await target.whenCalls(1);
    released.resolve();
    expect(await held).toEqual({ kind: 'result', text: 'bare released' });
  });
});
