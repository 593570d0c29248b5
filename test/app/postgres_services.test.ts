import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openBotServices, type BotServices } from '../../src/app/bot_services.js';
import { configSchema } from '../../src/app/config_schema.js';
import { NO_SECRETS } from '../../src/core/secret_values.js';
import { SequenceRandom } from '../support/sequence_random.js';
import { isUnreachableAtStart } from '../../src/core/start_retries.js';
import { isStoreRefusedError } from '../../src/turn_state/errors.js';
import { closedPortUrl } from '../support/fake_llm/server.js';
import { LEVEL, LogLines } from '../support/log_lines.js';
import { ManualClock } from '../support/manual_clock.js';
import { freshPgConnection, onSchema, refusedPgUrls } from '../support/postgres_schema.js';
import { useTempDir } from '../support/temp_dir.js';
import { admissionFor } from '../support/turn_store.js';

describe('the bot services on a PostgreSQL store', () => {
  const temp = useTempDir();
  const opened: BotServices[] = [];
  afterEach(async () => {
    for (const services of opened.splice(0)) await services.close();
  });

  async function open(url: string, schema: string): Promise<{ services: BotServices; logs: LogLines }> {
    const logs = new LogLines('info');
    const config = configSchema.parse({ turn_state: { backend: 'postgres', postgres: { url, schema } } });
    const services = await openBotServices(config, temp.path(), new ManualClock(), logs.logger, NO_SECRETS);
    opened.push(services);
    return { services, logs };
  }

  it('share one database between two processes, each registered, with nothing written beside the working directory', async () => {
    const { url, schema } = freshPgConnection();
    const first = await open(url, schema);
    const second = await open(url, schema);

    const admitted = await first.services.store.admit(admissionFor('m-1'));
    expect(admitted.disposition).toBe('admitted');
    expect((await second.services.store.admit(admissionFor('m-1'))).disposition).toBe('in_progress');
    await first.services.history.append('discord:c1', { role: 'user', text: 'hello from one process' });
    expect((await second.services.history.read('discord:c1')).entries.map((entry) => entry.text)).toEqual(['hello from one process']);

    const instances = await onSchema<{ pid: number; stopped_at: string | null }>({ url, schema, poolSize: 1 }, 'SELECT pid, stopped_at FROM instances');
    expect(instances).toEqual([
      { pid: process.pid, stopped_at: null },
      { pid: process.pid, stopped_at: null },
    ]);
    expect(first.logs.withMessage('the store is the PostgreSQL database, shared with the other processes of this bot')).toHaveLength(1);
    await first.services.close();
    expect((await onSchema<{ stopped: number }>({ url, schema, poolSize: 1 }, 'SELECT COUNT(*)::INTEGER AS stopped FROM instances WHERE stopped_at IS NOT NULL'))[0]).toEqual({ stopped: 1 });
    expect(existsSync(join(temp.path(), 'data'))).toBe(false);
  });

  it('answer without durability, loudly, when the database is reached but the store cannot open in it (a schema newer than this program)', async () => {
    const connection = freshPgConnection();
    const { url, schema } = connection;
    await onSchema(connection, `CREATE SCHEMA ${schema}`);
    await onSchema(connection, 'CREATE TABLE schema_version (version INTEGER NOT NULL)');
    await onSchema(connection, 'INSERT INTO schema_version (version) VALUES (999)');
    const { services, logs } = await open(url, schema);

    expect(services.store.durable).toBe(false);
    expect(await services.history.append('console:console', { role: 'user', text: 'hello' })).toBe(1);
    const failure = logs.withMessage('the PostgreSQL store could not open: turns are NOT durable, and history and memory notes are lost at restart, until this is fixed');
    expect(failure).toEqual([expect.objectContaining({ level: LEVEL.error, schema, cause: expect.stringContaining('newer than this program') as unknown })]);
    expect(logs.withMessage('conversation history and memory notes are kept in memory only')).toHaveLength(1);
  });

  it('refuse a password or a database the server refuses at once, naming its SQLSTATE, and create nothing', async () => {
    const { schema } = freshPgConnection();
    for (const [url, sqlState] of refusedPgUrls()) {
      const logs = new LogLines('info');
      const config = configSchema.parse({ turn_state: { backend: 'postgres', postgres: { url: url.href, schema } } });
      const refused = await openBotServices(config, temp.path(), new ManualClock(), logs.logger, NO_SECRETS).then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(isStoreRefusedError(refused) ? refused.sqlState : refused).toBe(sqlState);
      expect(logs.withMessage('the PostgreSQL store could not open: turns are NOT durable, and history and memory notes are lost at restart, until this is fixed')).toEqual([]);
    }
  });

  it('try a server where nothing listens again, waiting on the clock, and give up after startup_timeout_seconds', async () => {
    const url = new URL(await closedPortUrl());
    const clock = new ManualClock();
    const logs = new LogLines('info');
    const config = configSchema.parse({ startup_timeout_seconds: 5, turn_state: { backend: 'postgres', postgres: { url: `postgres://holdfast:pw@${url.host}/bot`, schema: 'holdfast' } } });
    const startup = { clock, random: new SequenceRandom([0.5]), logger: logs.logger, timeoutMs: 5_000, signal: new AbortController().signal };
    const opening = openBotServices(config, temp.path(), clock, logs.logger, NO_SECRETS, { startup }).then(
      () => undefined,
      (error: unknown) => error,
    );
    await logs.whenMessage(`could not reach PostgreSQL schema holdfast at ${url.host}/bot: trying again in 0.5 s (startup_timeout_seconds: 5)`);
    await clock.advance(5_000);
    const failure = await opening;

    expect(isUnreachableAtStart(failure) ? { what: failure.what, timeoutMs: failure.timeoutMs } : failure).toEqual({ what: `PostgreSQL schema holdfast at ${url.host}/bot`, timeoutMs: 5_000 });
  });

  it('stop waiting for a server where nothing listens when the bot is stopped, without falling back to memory', async () => {
    const url = new URL(await closedPortUrl());
    const clock = new ManualClock();
    const logs = new LogLines('info');
    const stop = new AbortController();
    const config = configSchema.parse({ turn_state: { backend: 'postgres', postgres: { url: `postgres://holdfast:pw@${url.host}/bot`, schema: 'holdfast' } } });
    const startup = { clock, random: new SequenceRandom([0.5]), logger: logs.logger, timeoutMs: 60_000, signal: stop.signal };
    const opening = openBotServices(config, temp.path(), clock, logs.logger, NO_SECRETS, { startup }).then(
      () => undefined,
      (error: unknown) => error,
    );
    await logs.whenMessage(`could not reach PostgreSQL schema holdfast at ${url.host}/bot: trying again in 0.5 s (startup_timeout_seconds: 60)`);
    stop.abort();
    const failure = await opening;

    expect(failure).toBeInstanceOf(Error);
    expect(isUnreachableAtStart(failure)).toBe(false);
    expect(logs.withMessage('conversation history and memory notes are kept in memory only')).toEqual([]);
  });

  it('close a store that opened only after the start gave up on it, so that its process is recorded as stopped', async () => {
    const connection = freshPgConnection();
    const clock = new ManualClock();
    const logs = new LogLines('info');
    const config = configSchema.parse({ turn_state: { backend: 'postgres', postgres: { url: connection.url, schema: connection.schema } } });
    const startup = { clock, random: new SequenceRandom([0.5]), logger: logs.logger, timeoutMs: 5_000, signal: new AbortController().signal };
    const opening = openBotServices(config, temp.path(), clock, logs.logger, NO_SECRETS, { startup }).then(
      () => undefined,
      (error: unknown) => error,
    );
    // The time runs out while the first attempt is still migrating the schema.
    await clock.whenSleeping();
    await clock.advance(5_000);

    expect(isUnreachableAtStart(await opening)).toBe(true);
    await expect.poll(async () => onSchema<{ stopped: boolean }>(connection, 'SELECT stopped_at IS NOT NULL AS stopped FROM instances'), { timeout: 20_000 }).toEqual([{ stopped: true }]);
  });
});
