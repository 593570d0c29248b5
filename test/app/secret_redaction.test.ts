import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Readable, Writable } from 'node:stream';
import BetterSqlite3 from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../../src/app/run.js';
import { FakeLLMServer } from '../support/fake_llm/server.js';
import { filesUnder, storeFileIn } from '../support/store_file.js';
import { useTempDir } from '../support/temp_dir.js';

/** A model key of no recognisable shape: only its value can give it away. */
const KEY = 'opaque-model-key-4f9a2c71e0';

/** Runs the whole program in this process with one line of input, collecting what it logs. */
async function runWithInput(cwd: string, line: string, env: Record<string, string>): Promise<{ status: number; log: string }> {
  const log: string[] = [];
  const stderr = Object.assign(
    new Writable({
      write(chunk: Buffer, _encoding, done) {
        log.push(chunk.toString('utf8'));
        done();
      },
    }),
    { isTTY: false },
  );
  const status = await runCli(['--jsonl'], { stdin: Readable.from([`${line}\n`]), stdout: { write: () => true }, stderr, env, cwd });
  return { status, log: log.join('') };
}

describe('configured secrets are never written down', () => {
  const temp = useTempDir();
  let fake: FakeLLMServer;

  beforeEach(async () => {
    fake = await FakeLLMServer.start();
  });
  afterEach(async () => {
    await fake.close();
  });

  it('keeps the API key that a provider error echoes out of the store file, its blobs and the log', async () => {
    fake.enqueue({
      kind: 'echo',
      status: 500,
      body: (request) => ({ error: { message: `Incorrect API key provided: ${String(request.headers.authorization).replace(/^Bearer /, '')}` } }),
    });
    temp.write(
      'config.yml',
      `llm:
  base_url: ${fake.baseUrl}
  model: test-model
  api_key: \${MODEL_KEY}
llm_recovery:
  generation_deadline_seconds: 0.001
  guard_failure_threshold: 1
logging:
  level: info
tools:
  builtin: []
`,
    );

    const run = await runWithInput(temp.path(), 'what is milk?', { MODEL_KEY: KEY });

    expect(run.status).toBe(0);
    expect(fake.requests[0]?.headers.authorization).toBe(`Bearer ${KEY}`);
    const db = new BetterSqlite3(storeFileIn(temp.path()), { readonly: true });
    expect(db.prepare('SELECT status, suspension_reason FROM turns').all()).toEqual([
      { status: 'SUSPENDED', suspension_reason: expect.stringContaining('Incorrect API key provided: [REDACTED]') as unknown },
    ]);
    db.close();
    const files = filesUnder(join(temp.path(), 'data'));
    expect(files).toContain(storeFileIn(temp.path()));
    for (const file of files) expect(readFileSync(file).includes(KEY), file).toBe(false);
    expect(run.log).toContain('Incorrect API key provided: [REDACTED]');
    expect(run.log).not.toContain(KEY);
  });
});
