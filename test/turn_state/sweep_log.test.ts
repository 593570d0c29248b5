import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import type { TurnStore } from '../../src/turn_state/turn_store.js';
import { LEVEL, LogLines, type LogLine } from '../support/log_lines.js';
import { ManualClock } from '../support/manual_clock.js';
import { useTempDir } from '../support/temp_dir.js';
import { openTurnStoreFile, TEST_TIMINGS } from '../support/turn_store.js';
import { admissionRequest, admitNew, identity, modelTurn, opKey } from './contract/fixtures.js';

describe('what the sweeps log', () => {
  const temp = useTempDir();
  let clock: ManualClock;
  let log: LogLines;
  let store: TurnStore;
  beforeEach(() => {
    clock = new ManualClock();
    log = new LogLines('debug');
    store = openTurnStoreFile(join(temp.path(), 'turns.sqlite3'), { clock, logger: log.logger });
    return () => store.close();
  });

  const warnings = (): LogLine[] => log.lines.filter((line) => line.level === LEVEL.warn);
  const sweepLines = (): LogLine[] => log.lines.filter((line) => 'sweep' in line);

  it('logs a sweep that changed nothing at DEBUG only', async () => {
    await admitNew(store, identity('m-1'));
    await store.sweepExpiredLeases();
    await store.sweepRetention();

    expect(sweepLines()).toEqual([
      expect.objectContaining({ level: LEVEL.debug, sweep: 'expired-lease sweep', suspendedTurns: 0, unknownOps: 0, turnIds: [] }),
      expect.objectContaining({ level: LEVEL.debug, sweep: 'retention sweep', expiredTurns: 0, tombstonedTurns: 0, deletedTurns: 0, turnIds: [] }),
    ]);
  });

  it('logs a sweep that changed something at INFO, with its duration and the turns it touched', async () => {
    const { lease: active } = await admitNew(store, identity('m-active'));
    await store.sweepOnStartup();
    expect(sweepLines()).toEqual([
      expect.objectContaining({ level: LEVEL.info, msg: 'start-up sweep done', sweep: 'start-up sweep', durationMs: 0, suspendedTurns: 1, unknownOps: 0, turnIds: [active.turnId] }),
    ]);

    const { lease: ended } = await admitNew(store, identity('m-ended'));
    await store.recordModelTurn(ended, modelTurn(1, [{ id: 'c1' }]));
    await store.moveOp(ended, opKey(ended.turnId, 1, 'c1'), { to: 'RUNNING' });
    await store.moveOp(ended, opKey(ended.turnId, 1, 'c1'), { to: 'APPLIED', result: 'sunny' });
    await store.finish(ended, 'TERMINAL_COMPLETED');
    const { lease: bare } = await admitNew(store, identity('m-bare'));
    await store.finish(bare, 'TERMINAL_CANCELLED');

    await clock.advance(TEST_TIMINGS.resumeTtlMs);
    await store.sweepRetention();
    await clock.advance(TEST_TIMINGS.payloadRetentionMs);
    await store.sweepRetention();
    await clock.advance(TEST_TIMINGS.ledgerRetentionMs);
    await store.sweepRetention();

    const retention = sweepLines().slice(1);
    expect(retention).toEqual([
      expect.objectContaining({ level: LEVEL.info, msg: 'retention sweep done', durationMs: 0, expiredTurns: 1, turnIds: [active.turnId] }),
      expect.objectContaining({ level: LEVEL.info, durationMs: 0, tombstonedTurns: 1, turnIds: [ended.turnId] }),
      expect.objectContaining({ level: LEVEL.info, durationMs: 0, deletedTurns: 3 }),
    ]);
    expect([...(retention[2]?.['turnIds'] as string[])].sort()).toEqual([active.turnId, ended.turnId, bare.turnId].sort());
  });

  it('warns once for each running call a sweep makes OUTCOME_UNKNOWN: whose it was, its stored input, and what happens next by its effect', async () => {
    const admission = await store.admit({ ...admissionRequest(identity('m-1', 'chan-7')), requesterId: 'ada' });
    if (admission.disposition !== 'admitted') throw new Error('not admitted');
    const { lease } = admission;
    await store.recordModelTurn(
      lease,
      modelTurn(2, [
        { id: 'w1', name: 'save_note', effect: 'write', input: { text: 'remember token=hunter2-secret-value' } },
        { id: 'r1', name: 'lookup', effect: 'read', input: { word: 'milk' } },
        { id: 'i1', name: 'charge', effect: 'idempotent', input: { cents: 500 } },
        { id: 'p1', name: 'lookup', effect: 'read', input: { word: 'not started' } },
      ]),
    );
    for (const id of ['w1', 'r1', 'i1']) await store.moveOp(lease, opKey(lease.turnId, 2, id), { to: 'RUNNING' });
    await admitNew(store, identity('m-2', 'chan-8'));

    await store.sweepOnStartup();

    const common = { turn: lease.turnId, channel: 'chan-7', requester: 'ada', step: 2, error: expect.stringMatching(/^interrupted while running/) as unknown };
    expect(warnings()).toEqual(
      [
        { ...common, call: 'i1', tool: 'charge', effect: 'idempotent', input: { cents: 500 }, msg: expect.stringMatching(/sent again with the same idempotency key/) as unknown },
        { ...common, call: 'r1', tool: 'lookup', effect: 'read', input: { word: 'milk' }, msg: expect.stringMatching(/runs again when the turn goes on$/) as unknown },
        {
          ...common,
          call: 'w1',
          tool: 'save_note',
          effect: 'write',
          input: { text: 'remember token=[REDACTED]' },
          msg: expect.stringMatching(/an operator must check whether it took effect and resolve it$/) as unknown,
        },
      ].map((fields) => expect.objectContaining({ level: LEVEL.warn, ...fields }) as unknown),
    );
    expect(JSON.stringify(log.lines)).not.toContain('hunter2');
  });

  it('warns for the running calls of a turn whose lease expired, and for no others', async () => {
    const { lease } = await admitNew(store, identity('m-1'));
    await store.recordModelTurn(lease, modelTurn(1, [{ id: 'c1', name: 'save_note', effect: 'write' }]));
    await store.moveOp(lease, opKey(lease.turnId, 1, 'c1'), { to: 'RUNNING' });
    await store.sweepExpiredLeases();
    expect(warnings()).toEqual([]);

    await clock.advance(TEST_TIMINGS.leaseTtlMs);
    await store.sweepExpiredLeases();
    expect(warnings()).toEqual([expect.objectContaining({ turn: lease.turnId, call: 'c1', step: 1, effect: 'write' })]);
  });
});
