import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseConfigText } from '../../src/app/config_schema.js';
import { McpServers } from '../../src/tools/mcp/mcp_servers.js';
import { runTool } from '../../src/tools/run_tool.js';
import type { ToolContext, ToolOutcome } from '../../src/tools/tool.js';
import { LEVEL, LogLines } from '../support/log_lines.js';
import { ManualClock } from '../support/manual_clock.js';
import { serverProgram } from '../support/mcp_packages.js';
import { metaServerSource, stdioServerSource } from '../support/scripted_stdio_server.js';
import { useTempDir } from '../support/temp_dir.js';

const context: ToolContext = {
  signal: new AbortController().signal,
  idempotencyKey: 'hf_stdio',
  requesterId: 'ada',
  channel: { source: 'console', channelId: 'c1' },
  logger: pino({ level: 'silent' }),
};

describe('MCP tools of stdio servers', () => {
  const temp = useTempDir();
  let clock: ManualClock;
  let logs: LogLines;
  let servers: McpServers | undefined;

  beforeEach(() => {
    clock = new ManualClock();
    logs = new LogLines('info');
  });
  afterEach(async () => {
    await servers?.close();
    servers = undefined;
  });

  async function start(yaml: string): Promise<McpServers> {
    const config = parseConfigText(`tools:\n  builtin: []\n  mcp:\n${yaml}`, 'c.yml', {});
    servers = await McpServers.start(config.tools.mcp, { cwd: temp.path(), clock, logger: logs.logger });
    return servers;
  }

  const scripted = (name: string, source: string): string => {
    const file = temp.write(`${name}.cjs`, source);
    return `    - name: ${name}\n      command: ${JSON.stringify(process.execPath)}\n      args: [${JSON.stringify(file)}]\n`;
  };

  async function call(name: string, callContext = context): Promise<ToolOutcome> {
    const tool = servers?.tools().find((entry) => entry.name === name);
    if (tool === undefined) throw new Error(`no tool ${name}`);
    return runTool(tool, {}, callContext, clock);
  }

  it('lists the published memory and filesystem servers’ tools under their names, each with the effect class its annotations give', async () => {
    const files = join(temp.path(), 'files');
    mkdirSync(files);
    const listed = await start(`    - name: memory
      command: ${JSON.stringify(process.execPath)}
      args: [${JSON.stringify(serverProgram('@modelcontextprotocol/server-memory'))}]
      env: { MEMORY_FILE_PATH: ${JSON.stringify(join(temp.path(), 'memory.jsonl'))} }
    - name: filesystem
      command: ${JSON.stringify(process.execPath)}
      args: [${JSON.stringify(serverProgram('@modelcontextprotocol/server-filesystem'))}, ${JSON.stringify(files)}]
`);
    expect(Object.fromEntries(listed.tools().map((tool) => [tool.name, tool.effect]))).toEqual({
      memory__create_entities: 'write',
      memory__create_relations: 'write',
      memory__add_observations: 'write',
      memory__delete_entities: 'idempotent',
      memory__delete_observations: 'idempotent',
      memory__delete_relations: 'idempotent',
      memory__read_graph: 'read',
      memory__search_nodes: 'read',
      memory__open_nodes: 'read',
      filesystem__read_file: 'read',
      filesystem__read_text_file: 'read',
      filesystem__read_media_file: 'read',
      filesystem__read_multiple_files: 'read',
      filesystem__write_file: 'idempotent',
      filesystem__edit_file: 'write',
      filesystem__create_directory: 'idempotent',
      filesystem__list_directory: 'read',
      filesystem__list_directory_with_sizes: 'read',
      filesystem__directory_tree: 'read',
      filesystem__move_file: 'write',
      filesystem__search_files: 'read',
      filesystem__get_file_info: 'read',
      filesystem__list_allowed_directories: 'read',
    });
  });

  it('logs a server that fails to start with the tail of its stderr, keeps going without its tools, and starts it once it can', async () => {
    const ready = join(temp.path(), 'vault-unlocked');
    await start(scripted('vault', stdioServerSource('cannot open the vault: permission denied', ready)));
    expect(servers?.tools()).toEqual([]);
    const failed = logs.withMessage('MCP server vault failed to start; its tools answer with an error until it is started again on next use');
    expect(failed).toMatchObject([{ level: LEVEL.error, server: 'vault', stderr: 'cannot open the vault: permission denied', retryAfterSeconds: 1 }]);

    writeFileSync(ready, '');
    await clock.advance(1_000);
    expect(servers?.tools()).toEqual([]);
    await logs.whenMessage('MCP server vault started');
    expect(servers?.tools().map((tool) => tool.name)).toEqual(['vault__echo', 'vault__crash']);
    expect(await call('vault__echo')).toMatchObject({ kind: 'result', text: expect.stringMatching(/^echo from \d+$/) as unknown });
  });

  it('reports a call cut off by the server’s process exiting as uncertain, logs its stderr, and starts a new process on next use', async () => {
    await start(scripted('vault', stdioServerSource('the vault fell over')));
    const first = await call('vault__echo');
    expect(await call('vault__crash')).toMatchObject({
      kind: 'uncertain',
      error: 'vault__crash was cut off while running (MCP server vault: the connection closed): the call may or may not have taken effect.',
    });
    expect(await logs.whenMessage('MCP server vault stopped; it is started again on next use')).toMatchObject({ level: LEVEL.warn, why: 'its process exited', stderr: 'the vault fell over' });
    expect(await call('vault__echo')).toEqual({
      kind: 'failed',
      error: 'MCP server vault is not running: it stopped: its process exited; it is restarted on next use. The call to vault__echo was not sent.',
    });
    await clock.advance(1_000);
    const again = await call('vault__echo');
    expect(again).toMatchObject({ kind: 'result', text: expect.stringMatching(/^echo from \d+$/) as unknown });
    expect(again).not.toEqual(first);
  });

  it('sends the call’s trace context in _meta beside its idempotency key, and none when tracing is off', async () => {
    const traceparent = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
    await start(scripted('meta', metaServerSource()));
    const traced = await call('meta__show_meta', { ...context, traceparent });
    const untraced = await call('meta__show_meta');
    expect([traced, untraced].map((outcome) => (outcome.kind === 'result' ? (JSON.parse(outcome.text) as unknown) : outcome))).toEqual([
      { 'holdfast/idempotency_key': 'hf_stdio', traceparent },
      { 'holdfast/idempotency_key': 'hf_stdio' },
    ]);
  });
});
