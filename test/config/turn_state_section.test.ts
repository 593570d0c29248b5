import { describe, expect, it } from 'vitest';
import { parseConfigText } from '../../src/app/config_schema.js';
import { turnStoreTimings } from '../../src/turn_state/store_options.js';

describe('the turn_state section', () => {
  it('defaults to a durable store with a 30 s lease, a 24 h resume window, 7 days of payload and 90 days of ledger', () => {
    const section = parseConfigText('', 'c.yml', {}).turn_state;
    expect(section).toMatchObject({ enabled: true, db_path: 'data/turn_state/turns.sqlite3' });
    expect(turnStoreTimings(section)).toEqual({ leaseTtlMs: 30_000, resumeTtlMs: 86_400_000, payloadRetentionMs: 604_800_000, ledgerRetentionMs: 7_776_000_000 });
  });

  it('takes fractional hours and days', () => {
    const section = parseConfigText('turn_state:\n  resume_ttl_hours: 0.5\n  payload_retention_days: 1.5\n  lease_ttl_seconds: 2.5\n', 'c.yml', {}).turn_state;
    expect(turnStoreTimings(section)).toMatchObject({ leaseTtlMs: 2_500, resumeTtlMs: 1_800_000, payloadRetentionMs: 129_600_000 });
  });
});
