import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { chatText, chatToolCalls } from '../support/fake_llm/openai_chat.js';
import type { FakeLLMServer } from '../support/fake_llm/server.js';
import { freshPgConnection } from '../support/postgres_schema.js';
import { isNotice, isReply, runProgram, startJsonLinesProgram, type JsonLinesProgram } from '../support/program.js';
import { noteToolItem, useProgramServers } from '../support/program_servers.js';
import { useTempDir } from '../support/temp_dir.js';
import type { ToolTarget } from '../support/tool_target.js';

const never = new Promise<void>(() => undefined);

// Real processes: generous limits that only catch hangs.
describe('the running bot tells the requester of a verdict given in another process within seconds (DESIGN §9.1)', { timeout: 90_000 }, () => {
  const temp = useTempDir();
  const servers = useProgramServers();
  let fake: FakeLLMServer;
  let target: ToolTarget;
  beforeEach(() => {
    ({ fake, target } = servers.current);
  });

  /**
   * A configuration whose `save_note` gives up waiting for its target after half a second (an uncertain write: the turn parks), and
   * whose housekeeping never comes round during a test, so that it cannot be what tells a verdict.
   */
  function configIn(dir: string, store = ''): string {
    const path = join(dir, 'config.yml');
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      path,
      `llm:
  base_url: ${fake.baseUrl}
  model: test-model
logging:
  level: warn
turn_state:
  housekeeping_interval_seconds: 3600
  auto_resume: true
${store}tools:
  builtin: []
  http:
${noteToolItem(target.url, 0.5)}`,
    );
    return path;
  }

  /** Runs a `save_note` whose target never answers in `bot`, until the turn parks for a verdict: the parking notice. */
  async function parkedIn(bot: JsonLinesProgram): Promise<Record<string, unknown>> {
    await bot.waitFor((e) => e['type'] === 'ready', 'the bot to be ready');
    target.reply({ hold: never });
    fake.enqueue(chatToolCalls([{ id: 'w1', name: 'save_note', args: '{"text":"open ticket"}' }]));
    bot.send('Open a ticket');
    return bot.waitFor(isNotice('manual_resolution'), 'the turn parked for a verdict');
  }

  /** `holdfast turns resolve … --applied` as its own process beside the running bot, then the bot's `resolved` notice and the reply that goes on from it. */
  async function resolvedBeside(bot: JsonLinesProgram, dir: string, config: string, parked: Record<string, unknown>): Promise<void> {
    const turn = String(parked['turn']);
    fake.enqueue(chatText('Your ticket is T-42.'));
    const resolved = await runProgram(['turns', 'resolve', turn.slice(0, 8), 'w1', '--applied', '--result', 'ticket T-42 was created', '--config', config], { cwd: dir });
    expect(resolved.stderr).toBe('');
    expect(resolved.status).toBe(0);

    expect(await bot.waitFor(isNotice('resolved'), 'the resolved notice, without the user asking')).toMatchObject({
      turn,
      text: expect.stringContaining('`save_note` (call w1) took effect: ticket T-42 was created. I am continuing your request now.') as unknown,
    });
    expect(await bot.waitFor(isReply, 'the reply built on the verdict')).toMatchObject({ turn, text: 'Your ticket is T-42.' });
    const lastRequest = fake.requests.at(-1)?.body as { messages: { role: string; content: unknown }[] };
    expect(lastRequest.messages.at(-1)).toEqual({ role: 'tool', tool_call_id: 'w1', content: 'ticket T-42 was created' });
    expect(bot.events.filter(isNotice('resolved'))).toHaveLength(1);
    expect(target.requests).toHaveLength(1);
  }

  it('on SQLite: a verdict from the command line is told in the channel by the running bot, and the turn goes on by itself with it', async () => {
    const dir = temp.path();
    const config = configIn(dir);
    const bot = servers.current.track(startJsonLinesProgram(['--config', config], { cwd: dir }));
    const parked = await parkedIn(bot);

    await resolvedBeside(bot, dir, config, parked);
  });

  it('on PostgreSQL: a verdict from the command line is told in the channel by the running bot, and the turn goes on by itself with it', async () => {
    const { url, schema } = freshPgConnection();
    const dir = temp.path();
    const config = configIn(dir, `  backend: postgres\n  postgres:\n    url: ${url}\n    schema: ${schema}\n`);
    const bot = servers.current.track(startJsonLinesProgram(['--config', config], { cwd: dir }));
    const parked = await parkedIn(bot);

    await resolvedBeside(bot, dir, config, parked);
  });
});
