import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { deferred } from '../support/deferred.js';
import { chatText } from '../support/fake_llm/openai_chat.js';
import { FakeLLMServer } from '../support/fake_llm/server.js';
import { isReply, type JsonLinesProgram, type ProgramRun, runProgram, startJsonLinesProgram, useProgramsKilledAfterEach } from '../support/program.js';
import { storeFileIn } from '../support/store_file.js';
import { useTempDir } from '../support/temp_dir.js';

const isReady = (event: Record<string, unknown>): boolean => event['type'] === 'ready';

/** The one line a refused start printed, failing the test when it printed more or less. */
function onlyLine(run: ProgramRun): string {
  const lines = run.stderr.trimEnd().split('\n');
  expect(lines).toHaveLength(1);
  return lines[0] ?? '';
}

// Real processes: generous limits that only catch hangs.
describe('one bot process per store file', { timeout: 60_000 }, () => {
  const temp = useTempDir();
  let fake: FakeLLMServer;

  beforeEach(async () => {
    fake = await FakeLLMServer.start();
  });
  afterEach(async () => {
    await fake.close();
  });
  // Registered after the servers' hook, so that it runs first: the programs stop before their servers.
  const track = useProgramsKilledAfterEach();

  function configFile(): string {
    return temp.write('config.yml', `llm:\n  provider: openai\n  base_url: ${fake.baseUrl}\n  model: test-model\nlogging:\n  level: warn\ntools:\n  builtin: []\n`);
  }

  function start(): JsonLinesProgram {
    const program = startJsonLinesProgram(['--config', configFile()], { cwd: temp.path() });
    return track(program);
  }

  const startAnother = (): Promise<ProgramRun> => runProgram(['--console', '--jsonl', '--config', configFile()], { cwd: temp.path() });

  it('refuses a second bot process on the same store with exit 2 naming the holder, while the first one’s turn ends as it would have', async () => {
    const release = deferred();
    const answer = chatText(['Milk ', 'is a drink.']);
    fake.enqueue({ ...answer, chunks: [...answer.chunks.slice(0, 2), release.promise, ...answer.chunks.slice(2)] });
    const first = start();
    await first.waitFor(isReady);
    first.send('What is milk?');
    await fake.whenRequests(1);

    const second = await startAnother();

    expect(second.status).toBe(2);
    const line = onlyLine(second);
    expect(line).toMatch(/^holdfast: the store .* is in use by another bot process \(pid \d+ on host /);
    expect(line).toContain(storeFileIn(temp.path()));
    expect(line).toContain(`(pid ${String(first.pid)} on host `);
    release.resolve();
    expect(await first.waitFor(isReply)).toMatchObject({ text: 'Milk is a drink.' });
    first.endInput();
    expect(await first.exited).toBe(0);
    expect(first.events.filter((e) => e['type'] === 'turn').map((e) => e['status'])).toEqual(['ACTIVE', 'TERMINAL_COMPLETED']);
    expect(first.events.filter((e) => e['kind'] === 'notice')).toEqual([]);
  });

  it('lets the next bot process start after the holder was killed, and that one holds the store in its turn', async () => {
    const killed = start();
    await killed.waitFor(isReady);
    killed.kill('SIGKILL');
    await killed.exited;

    fake.enqueue(chatText('Still here.'));
    const next = start();
    await next.waitFor(isReady);
    next.send('Are you there?');
    expect(await next.waitFor(isReply)).toMatchObject({ text: 'Still here.' });

    const third = await startAnother();
    expect(third.status).toBe(2);
    expect(onlyLine(third)).toContain(`(pid ${String(next.pid)} on host `);
  });
});
