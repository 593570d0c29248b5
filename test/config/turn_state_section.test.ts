import { describe, expect, it } from 'vitest';
import { parseConfigText } from '../../src/app/config_schema.js';
import { configProblems } from '../support/config_problems.js';
import { turnStoreTimings } from '../../src/turn_state/store_options.js';

describe('the turn_state section', () => {
  it('defaults to a durable store with a 30 s lease, a 24 h resume window, 7 days of payload and 90 days of ledger', () => {
    const section = parseConfigText('', 'c.yml', {}).turn_state;
    expect(section).toMatchObject({ enabled: true, db_path: 'data/turn_state/turns.sqlite3' });
    expect(turnStoreTimings(section)).toEqual({ leaseTtlMs: 30_000, resumeTtlMs: 86_400_000, payloadRetentionMs: 604_800_000, ledgerRetentionMs: 7_776_000_000, usageRetentionMs: 34_560_000_000 });
  });

  it('takes fractional hours and days', () => {
    const section = parseConfigText('turn_state:\n  resume_ttl_hours: 0.5\n  payload_retention_days: 1.5\n  lease_ttl_seconds: 2.5\n', 'c.yml', {}).turn_state;
    expect(turnStoreTimings(section)).toMatchObject({ leaseTtlMs: 2_500, resumeTtlMs: 1_800_000, payloadRetentionMs: 129_600_000 });
  });
});

describe('turn_state.backend and turn_state.postgres', () => {
  const postgres = (lines: string): string => `turn_state:\n  backend: postgres\n${lines}`;

  it('is SQLite by default; postgres takes a URL, with a pool of 10 in the schema holdfast unless told otherwise', () => {
    const defaults = parseConfigText('', 'c.yml', {}).turn_state;
    expect([defaults.backend, defaults.postgres]).toEqual(['sqlite', undefined]);
    expect(parseConfigText(postgres('  postgres:\n    url: ${DATABASE_URL}\n'), 'c.yml', { DATABASE_URL: 'postgres://bot:pw@db:5432/app' }).turn_state.postgres).toEqual({
      url: 'postgres://bot:pw@db:5432/app',
      pool_size: 10,
      schema: 'holdfast',
    });
  });

  it('refuses postgres without its section, a URL that is not PostgreSQL’s or cannot be read, and a schema name it would have to quote, naming the key and never a password', () => {
    expect(configProblems(postgres(''))).toEqual(['c.yml:2:3: turn_state.postgres: backend postgres needs turn_state.postgres with its url']);
    expect(configProblems(postgres('  postgres:\n    url: mysql://bot:hunter2@db/app\n'))).toEqual([
      'c.yml:4:10: turn_state.postgres.url: a PostgreSQL URL starts with postgres:// or postgresql://; got "mysql://bot:***@db/app"',
    ]);
    expect(configProblems(postgres('  postgres:\n    url: "postgres://bot:hunter2@[db"\n'))).toEqual([
      'c.yml:4:10: turn_state.postgres.url: not a URL that can be read: check its host and percent-encoding',
    ]);
    expect(configProblems(postgres('  postgres:\n    url: postgres://db/app\n    schema: Holdfast-Bot\n'))).toEqual([
      'c.yml:5:13: turn_state.postgres.schema: a schema name is lower-case letters, digits and underscores, not starting with a digit; got "Holdfast-Bot"',
    ]);
  });
});
