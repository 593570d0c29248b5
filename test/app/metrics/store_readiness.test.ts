import BetterSqlite3 from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { startEmbeddedPostgres, type StartedPostgres } from '../../support/embedded_postgres.js';
import { FakeLLMServer } from '../../support/fake_llm/server.js';
import { metricsUrlIn } from '../../support/prometheus_text.js';
import { startJsonLinesProgram, whenReading, useProgramsKilledAfterEach, type JsonLinesProgram } from '../../support/program.js';
import { storeFileIn } from '../../support/store_file.js';
import { useTempDir } from '../../support/temp_dir.js';

async function readyz(url: string): Promise<{ status: number; body: unknown }> {
  const response = await fetch(`${url}/readyz`);
  return { status: response.status, body: await response.json() };
}

const READY = { status: 200, body: { ready: true } };
const STORE_DOWN = { status: 503, body: { ready: false, not_ready: ['store'] } };

// Real processes and a real database server: generous limits that only catch hangs.
describe('/readyz follows whether the store works now, not whether it once opened', { timeout: 90_000 }, () => {
  const temp = useTempDir();
  const track = useProgramsKilledAfterEach();
  let fake: FakeLLMServer | undefined;
  let postgres: StartedPostgres | undefined;
  afterEach(async () => {
    await fake?.close();
    fake = undefined;
    await postgres?.stop();
    postgres = undefined;
  });

  /** The built program on `store` (YAML for `turn_state`), its metrics served; resolves once it is ready, with where /readyz is. */
  async function started(store: string): Promise<{ bot: JsonLinesProgram; url: string }> {
    fake = await FakeLLMServer.start();
    const config = temp.write(
      'config.yml',
      `llm:\n  base_url: ${fake.baseUrl}\n  model: test-model\nlogging:\n  level: info\n  format: json\nmetrics:\n  listen: 127.0.0.1:0\nturn_state:\n${store}tools:\n  builtin: []\n`,
    );
    const bot = track(startJsonLinesProgram(['--config', config], { cwd: temp.path() }));
    await whenReading(bot);
    await bot.logged('health at /healthz and /readyz"}');
    const url = metricsUrlIn(bot.stderr());
    if (url === undefined) throw new Error(`no metrics url in the log:\n${bot.stderr()}`);
    return { bot, url };
  }

  it('SQLite: turns not ready while another connection holds the store file’s write lock, and ready again once it lets go', async () => {
    const { url } = await started('  enabled: true\n');
    expect(await readyz(url)).toEqual(READY);

    const other = new BetterSqlite3(storeFileIn(temp.path()));
    other.exec('BEGIN IMMEDIATE');
    try {
      expect(await readyz(url)).toEqual(STORE_DOWN);
    } finally {
      other.exec('ROLLBACK');
      other.close();
    }
    expect(await readyz(url)).toEqual(READY);
  });

  it('PostgreSQL: turns not ready while the database server is stopped, and ready again once it is back', async () => {
    postgres = await startEmbeddedPostgres({ durable: false });
    const { url } = await started(`  backend: postgres\n  postgres:\n    url: ${postgres.url}\n`);
    expect(await readyz(url)).toEqual(READY);

    await postgres.pause();
    expect(await readyz(url)).toEqual(STORE_DOWN);

    await postgres.resume();
    expect(await readyz(url)).toEqual(READY);
  });
});
