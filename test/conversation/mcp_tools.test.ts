import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { inboundFromText } from '../../src/conversation/notices/channel_commands.js';
import { Intake } from '../../src/conversation/turns/intake.js';
import { deriveCatalog } from '../../src/tools/catalog.js';
import { McpServers } from '../../src/tools/mcp/mcp_servers.js';
import { IDEMPOTENCY_META_KEY } from '../../src/tools/mcp/mcp_tool.js';
import { targetToolsConfig } from '../support/engine_harness.js';
import { chatText, chatToolCalls } from '../support/fake_llm/openai_chat.js';
import type { FakeLLMServer } from '../support/fake_llm/server.js';
import { useConversationHarness } from '../support/conversation_harness.js';
import { serverProgram } from '../support/mcp_packages.js';
import { McpTarget } from '../support/mcp_target.js';
import { useTempDir } from '../support/temp_dir.js';
import { deferred } from '../support/deferred.js';

const never = new Promise<void>(() => undefined);

interface SentRequest {
  readonly messages: { readonly role: string; readonly tool_call_id?: string; readonly content: unknown }[];
  readonly tools?: { readonly function: { readonly name: string } }[];
}

describe('MCP tools in a conversation', () => {
  const harness = useConversationHarness();
  const temp = useTempDir();
  let fake: FakeLLMServer;
  let servers: McpServers | undefined;
  let target: McpTarget | undefined;
  beforeEach(() => {
    ({ fake } = harness.current);
  });
  afterEach(async () => {
    await servers?.close();
    servers = undefined;
    await target?.close();
    target = undefined;
  });

  /** An intake whose catalog holds the MCP servers `mcpYaml` configures (a `tools.mcp` list), started for real. */
  async function intakeWith(mcpYaml: string, more = ''): Promise<Intake> {
    const extra = `  mcp:\n${mcpYaml}${more}`;
    const config = targetToolsConfig(harness.current.target.url, extra);
    servers = await McpServers.start(config.tools.mcp, { cwd: temp.path(), clock: harness.current.store.clock, logger: pino({ level: 'silent' }) });
    const started = servers;
    return new Intake(harness.current.deps(extra, { catalog: () => deriveCatalog(config.tools, { memory: undefined, mcp: started }) }));
  }

  const sent = (index: number): SentRequest => fake.requests[index]?.body as SentRequest;
  const published = (name: string, program: string, args: readonly string[], env = ''): string =>
    `    - name: ${name}\n      command: ${JSON.stringify(process.execPath)}\n      args: ${JSON.stringify([program, ...args])}\n${env}`;

  it('reads a file through the published filesystem server: the model asks, the bot runs the call, the model sees the file', async () => {
    const files = join(temp.path(), 'files');
    mkdirSync(files);
    writeFileSync(join(files, 'notes.txt'), 'Buy oat milk.');
    const bot = await intakeWith(
      published('filesystem', serverProgram('@modelcontextprotocol/server-filesystem'), [files]),
      'permissions:\n  tools:\n    filesystem__write_file: { deny_users: [ada] }\n',
    );
    fake.enqueue(chatToolCalls([{ id: 'r1', name: 'filesystem__read_text_file', args: JSON.stringify({ path: join(files, 'notes.txt') }) }]), chatText('It says to buy oat milk.'));
    bot.submit(inboundFromText(harness.current.message('What does my note say?')));
    await bot.idle();
    expect(harness.current.replies()).toEqual(['It says to buy oat milk.']);
    expect(sent(1).messages.at(-1)).toEqual({ role: 'tool', tool_call_id: 'r1', content: 'Buy oat milk.' });
    const offered = (sent(0).tools ?? []).map((tool) => tool.function.name);
    expect(offered.slice(0, 3)).toEqual(['save_note', 'lookup', 'filesystem__read_file']);
    expect(offered).toContain('filesystem__edit_file');
    expect(offered).not.toContain('filesystem__write_file');
  });

  it('keeps and reads back an entity through the published memory server, a write and then a read', async () => {
    const memoryFile = join(temp.path(), 'memory.jsonl');
    const bot = await intakeWith(published('memory', serverProgram('@modelcontextprotocol/server-memory'), [], `      env: { MEMORY_FILE_PATH: ${JSON.stringify(memoryFile)} }\n`));
    const entity = { name: 'Ada', entityType: 'person', observations: ['prefers tea'] };
    fake.enqueue(
      chatToolCalls([{ id: 'w1', name: 'memory__create_entities', args: JSON.stringify({ entities: [entity] }) }]),
      chatToolCalls([{ id: 'r1', name: 'memory__open_nodes', args: JSON.stringify({ names: ['Ada'] }) }]),
      chatText('Noted: Ada prefers tea.'),
    );
    bot.submit(inboundFromText(harness.current.message('Remember that I prefer tea.')));
    await bot.idle();
    expect(harness.current.replies()).toEqual(['Noted: Ada prefers tea.']);
    const read = sent(2).messages.at(-1);
    expect(read).toMatchObject({ role: 'tool', tool_call_id: 'r1' });
    expect(JSON.parse(String(read?.content))).toMatchObject({ entities: [entity] });
    expect(readFileSync(memoryFile, 'utf8')).toContain('prefers tea');
  });

  it('asks for approval before a tool named in `tools.mcp[].approval`, and runs it once approved; the server’s reads follow their class', async () => {
    const memoryFile = join(temp.path(), 'memory.jsonl');
    const server = published(
      'memory',
      serverProgram('@modelcontextprotocol/server-memory'),
      [],
      `      env: { MEMORY_FILE_PATH: ${JSON.stringify(memoryFile)} }\n      approval: { create_entities: required }\n`,
    );
    const bot = await intakeWith(server);
    const entity = { name: 'Ada', entityType: 'person', observations: ['prefers tea'] };
    fake.enqueue(
      chatToolCalls([{ id: 'r1', name: 'memory__read_graph', args: '{}' }]),
      chatToolCalls([{ id: 'w1', name: 'memory__create_entities', args: JSON.stringify({ entities: [entity] }) }]),
      chatText('Noted: Ada prefers tea.'),
    );
    bot.submit(inboundFromText(harness.current.message('Remember that I prefer tea.')));
    await bot.idle();
    const asked = harness.current.events.filter((e) => e.type === 'approval_asked');
    expect(asked).toMatchObject([{ call: 'w1' }]);
    expect(readFileSync(memoryFile, { encoding: 'utf8', flag: 'a+' })).not.toContain('prefers tea');

    bot.submit(inboundFromText(harness.current.message('/approve w1')));
    await bot.idle();
    expect(harness.current.replies()).toEqual(['Noted: Ada prefers tea.']);
    expect(readFileSync(memoryFile, 'utf8')).toContain('prefers tea');
  });

  it('sends MCP’s cancellation for a running call on /stop, and the turn ends cancelled', async () => {
    target = await McpTarget.start();
    target.answer({ hold: never });
    const bot = await intakeWith(`    - name: target\n      url: ${target.url}\n`);
    fake.enqueue(chatToolCalls([{ id: 'r1', name: 'target__reader', args: '{"text":"slow"}' }]));
    bot.submit(inboundFromText(harness.current.message('Look it up.')));
    await target.whenCalls(1);
    bot.submit(inboundFromText(harness.current.message('/stop')));
    await target.whenCancelled(1);
    await bot.idle();
    expect(target.cancelled).toEqual(['reader']);
    expect(harness.current.notices()).toEqual(['status', 'cancelled']);
    expect(fake.requests).toHaveLength(1);
  });

  it('leaves a write cancelled by /stop to an operator, since it may have taken effect', async () => {
    target = await McpTarget.start();
    target.answer({ hold: never });
    const bot = await intakeWith(`    - name: target\n      url: ${target.url}\n`);
    fake.enqueue(chatToolCalls([{ id: 'w1', name: 'target__bare', args: '{"text":"send"}' }]));
    bot.submit(inboundFromText(harness.current.message('Send it.')));
    await target.whenCalls(1);
    bot.submit(inboundFromText(harness.current.message('/stop')));
    await target.whenCancelled(1);
    await bot.idle();
    expect(harness.current.notices()).toEqual(['status', 'manual_resolution']);
    expect(target.calls).toHaveLength(1);
  });

  it(
    'never cuts short the re-send that settles an uncertain idempotent call: /stop during it sends no ' + 'cancellation, the call ends RECONCILED_APPLIED, and the turn ends cancelled once it settled',
    async () => {
      target = await McpTarget.start();
      const resent = deferred();
      target.answer({ hold: never }, { hold: resent.promise });
      const bot = await intakeWith(`    - name: target\n      url: ${target.url}\n      timeout_seconds: 8\n`);
      fake.enqueue(chatToolCalls([{ id: 'i1', name: 'target__repeater', args: '{"text":"charge"}' }]));
      bot.submit(inboundFromText(harness.current.message('Charge it.')));
      await target.whenCalls(1);
      // The first run times out (before the lease's first heartbeat is due): it may have taken effect, so it is sent again with the same key.
      await harness.current.store.clock.advance(8_000);
      await target.whenCalls(2);
      bot.submit(inboundFromText(harness.current.message('/stop')));
      resent.resolve();
      await bot.idle();

      expect(target.cancelled).toEqual(['repeater']);
      const keys = target.calls.map((call) => call.meta?.[IDEMPOTENCY_META_KEY]);
      expect(keys).toHaveLength(2);
      expect(keys[1]).toBe(keys[0]);
      const turn = await harness.current.store.turns.latestTurnOf({ source: 'console', channelId: 'c1' }, 'ada');
      expect(turn?.status).toBe('TERMINAL_CANCELLED');
      const ops = await harness.current.store.turns.listOps(turn?.turnId ?? '');
      expect(ops.map((op) => [op.toolName, op.state, op.result])).toEqual([['target__repeater', 'RECONCILED_APPLIED', 'repeater released']]);
      expect(harness.current.notices()).toEqual(['status', 'cancelled']);
      expect(fake.requests).toHaveLength(1);
    },
  );

  it('lets a running call finish when the bot shuts down, and keeps its result for the resume', async () => {
    target = await McpTarget.start();
    const released = deferred();
    target.answer({ hold: released.promise });
    const bot = await intakeWith(`    - name: target\n      url: ${target.url}\n`);
    fake.enqueue(chatToolCalls([{ id: 'w1', name: 'target__bare', args: '{"text":"send"}' }]));
    bot.submit(inboundFromText(harness.current.message('Send it.')));
    await target.whenCalls(1);
    const stopping = bot.shutdown();
    released.resolve();
    await stopping;
    expect(harness.current.notices()).toEqual(['suspended']);
    expect(target.cancelled).toEqual([]);
    const [suspended] = await harness.current.store.turns.listSuspended({ source: 'console', channelId: 'c1' });
    const ops = await harness.current.store.turns.listOps(suspended?.turnId ?? '');
    expect(ops.map((op) => [op.toolName, op.state, op.result])).toEqual([['target__bare', 'APPLIED', 'bare released']]);
  });
});
