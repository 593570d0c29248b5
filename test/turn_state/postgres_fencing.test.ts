import pg from 'pg';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { blobDigest } from '../../src/turn_state/blob_store.js';
import { isStaleTurnError } from '../../src/turn_state/errors.js';
import { requiredBlobSink, type Op } from '../../src/turn_state/operations/instructions.js';
import { runOnPostgres } from '../../src/turn_state/postgres/pg_driver.js';
import { migratePg, PG_MIGRATIONS } from '../../src/turn_state/postgres/pg_migrations.js';
import { openPgPool, type PgConnection } from '../../src/turn_state/postgres/pg_pool.js';
import { pgPortsOn } from '../../src/turn_state/postgres/open_pg_store.js';
import type { TurnStore } from '../../src/turn_state/turn_store.js';
import type { AdmissionRequest, Lease } from '../../src/turn_state/turn_types.js';
import { ManualClock } from '../support/manual_clock.js';
import { callsAfter, databaseFollows, freshPgConnection, onSchema, type FollowedClock } from '../support/postgres_schema.js';
import { SequentialIds } from '../support/sequential_ids.js';
import { TEST_TIMINGS } from '../support/turn_store.js';

/** Two bot processes on one database: each its own pool, ids, clock and instance id. */
interface TwoProcesses {
  readonly a: TurnStore;
  readonly b: TurnStore;
  /** The database's clock. */
  readonly database: ManualClock;
  /** Process A's own clock, which the store never consults for expiry. */
  readonly clockOfA: ManualClock;
}

const request = (messageId: string): AdmissionRequest => ({
  identity: { source: 'discord', channelId: 'chan-1', messageId },
  requesterId: 'user-1',
  messageDigest: `digest-${messageId}`,
  start: { transcript: [], state: {} },
});

async function admitted(store: TurnStore, messageId: string): Promise<Lease> {
  const admission = await store.admit(request(messageId));
  if (admission.disposition !== 'admitted') throw new Error(`expected ${messageId} to be admitted, got ${admission.disposition}`);
  return admission.lease;
}

/** A session of its own on `connection`'s schema, outside the stores. */
async function sessionOn(connection: PgConnection): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: connection.url, options: `-c search_path=${connection.schema}` });
  await client.connect();
  return client;
}

/**
 * Runs `contenders` while another session holds the turn's row locked, and lets it go only once
 * `waiters` sessions wait behind it: they have all read the turn as it was and now race for it.
 */
async function racingForTurn<T>(connection: PgConnection, turnId: string, waiters: number, contenders: () => Promise<T>): Promise<T> {
  const [holder, observer] = [await sessionOn(connection), await sessionOn(connection)];
  try {
    await holder.query('BEGIN');
    await holder.query('SELECT 1 FROM turns WHERE turn_id = $1 FOR UPDATE', [turnId]);
    const holderPid = (await holder.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]?.pid;
    const racing = contenders();
    for (;;) {
      const { rows } = await observer.query<{ n: string }>(
        `WITH RECURSIVE blocked (pid) AS (
           SELECT pid FROM pg_stat_activity WHERE $1 = ANY (pg_blocking_pids(pid))
           UNION SELECT waiting.pid FROM pg_stat_activity AS waiting, blocked WHERE blocked.pid = ANY (pg_blocking_pids(waiting.pid)))
         SELECT COUNT(*) AS n FROM blocked`,
        [holderPid],
      );
      if (Number(rows[0]?.n) >= waiters) break;
    }
    await holder.query('COMMIT');
    return await racing;
  } finally {
    await Promise.all([holder.end(), observer.end()]);
  }
}

describe('several processes on one PostgreSQL store', () => {
  const pools: pg.Pool[] = [];
  const clocks: FollowedClock[] = [];
  afterEach(async () => {
    await Promise.all(clocks.splice(0).map((clock) => clock.close()));
    await Promise.all(pools.splice(0).map((pool) => pool.end()));
  });

  async function twoProcesses(): Promise<TwoProcesses & { readonly connection: ReturnType<typeof freshPgConnection> }> {
    const connection = freshPgConnection();
    const [poolA, poolB] = [openPgPool(connection), openPgPool(connection)];
    pools.push(poolA, poolB);
    await migratePg(poolA, connection.schema, PG_MIGRATIONS);
    const database = new ManualClock();
    const followed = await databaseFollows(connection, database);
    clocks.push(followed);
    const clockOfA = new ManualClock();
    const logger = pino({ level: 'silent' });
    const a = pgPortsOn(poolA, { ...TEST_TIMINGS, clock: clockOfA, ids: new SequentialIds('a'), logger, instanceId: 'process-a' }).turns;
    const b = pgPortsOn(poolB, { ...TEST_TIMINGS, clock: new ManualClock(), ids: new SequentialIds('b'), logger, instanceId: 'process-b' }).turns;
    return { a: callsAfter(a, () => followed.sync()), b: callsAfter(b, () => followed.sync()), database, clockOfA, connection };
  }

  it('admits a message both processes admit at once exactly once, owned by the one that won', async () => {
    const { a, b, connection } = await twoProcesses();

    const [fromA, fromB] = await Promise.all([a.admit(request('m-1')), b.admit(request('m-1'))]);

    expect([fromA.disposition, fromB.disposition].sort()).toEqual(['admitted', 'in_progress']);
    const rows = await onSchema<{ turn_id: string; owner_instance: string }>(connection, 'SELECT turn_id, owner_instance FROM turns');
    expect(rows).toHaveLength(1);
    expect(rows[0]?.owner_instance).toBe(fromA.disposition === 'admitted' ? 'process-a' : 'process-b');
    for (const admission of [fromA, fromB]) expect('turn' in admission ? admission.turn.turnId : admission.disposition).toBe(rows[0]?.turn_id);
  });

  it('keeps one inbox entry for a message both processes accept at once', async () => {
    const { a, b } = await twoProcesses();
    const inbound = { identity: request('m-1').identity, message: { text: 'hello' } };

    const [idFromA, idFromB] = await Promise.all([a.acceptInbound(inbound), b.acceptInbound(inbound)]);

    expect(idFromA).toBe(idFromB);
    expect((await b.listInbox('discord')).map((entry) => entry.id)).toEqual([idFromA]);
  });

  it('lets exactly one of two processes resuming the same suspended turn at once continue it', async () => {
    const { a, b, connection } = await twoProcesses();
    const lease = await admitted(a, 'm-1');
    await a.suspend(lease, 'provider overloaded');

    const claims = await racingForTurn(connection, lease.turnId, 2, () => Promise.all([a.claimResume(lease.turnId, 1), b.claimResume(lease.turnId, 1)]));

    expect(claims.filter((claim) => claim.won)).toHaveLength(1);
    expect(claims.filter((claim) => !claim.won)).toEqual([{ won: false, reason: 'not_suspended' }]);
    const [row] = await onSchema<{ generation: number; owner_instance: string }>(connection, 'SELECT generation, owner_instance FROM turns');
    expect(row).toEqual({ generation: 2, owner_instance: claims[0]?.won === true ? 'process-a' : 'process-b' });
  });

  it("never suspends another process's live turn at its start, only its own, and takes the other's once its lease expired by database time", async () => {
    const { a, b, database } = await twoProcesses();
    const ofA = await admitted(a, 'm-a');
    await a.recordModelTurn(ofA, {
      step: 1,
      assistant: { role: 'assistant', content: [{ type: 'tool_use', id: 'call-1', name: 'post_message', input: { text: 'hi' } }] },
      intents: [{ toolCallId: 'call-1', toolName: 'post_message', input: { text: 'hi' }, effect: 'write' }],
    });
    await a.moveOp(ofA, { turnId: ofA.turnId, step: 1, toolCallId: 'call-1' }, { to: 'RUNNING' });
    const ofB = await admitted(b, 'm-b');

    expect(await b.sweepOnStartup()).toEqual({ suspendedTurns: 1, unknownOps: 0, turnIds: [ofB.turnId], uncertainCalls: [] });
    expect(await b.getTurn(ofA.turnId)).toMatchObject({ status: 'ACTIVE', leaseToken: ofA.token });
    await a.heartbeat(ofA);

    await database.advance(TEST_TIMINGS.leaseTtlMs);
    const swept = await b.sweepOnStartup();

    expect(swept).toMatchObject({ suspendedTurns: 1, unknownOps: 1, turnIds: [ofA.turnId], uncertainCalls: [{ turnId: ofA.turnId, toolCallId: 'call-1', effect: 'write' }] });
    expect(await a.getTurn(ofA.turnId)).toMatchObject({ status: 'SUSPENDED', leaseToken: null });
    expect(isStaleTurnError(await a.checkpoint(ofA, { append: [], state: {}, progressed: true }).catch((error: unknown) => error))).toBe(true);
  });

  it("refuses a write whose lease expired by the database's clock while the writer's own clock says it is still valid", async () => {
    const { a, database, clockOfA } = await twoProcesses();
    const lease = await admitted(a, 'm-1');
    await database.advance(TEST_TIMINGS.leaseTtlMs);

    const refused = await a.checkpoint(lease, { append: [], state: { late: true }, progressed: true }).catch((error: unknown) => error);

    expect(lease.expiresAt).toBeGreaterThan(clockOfA.now());
    expect(isStaleTurnError(refused)).toBe(true);
    expect((await a.loadResumable(lease.turnId))?.checkpoint?.state).toEqual({});
  });

  it("never collects a blob that another process's write in progress is storing again", async () => {
    const { a, b, connection } = await twoProcesses();
    const picture = Buffer.from('a picture both turns were sent');
    const image = { type: 'image' as const, mediaType: 'image/png', source: { kind: 'base64' as const, data: picture.toString('base64') } };
    const ended = await admitted(a, 'm-ended');
    await a.checkpoint(ended, { append: [{ role: 'user', content: [image] }], state: {}, progressed: true });
    await a.finish(ended, 'TERMINAL_COMPLETED');
    const writing = await admitted(a, 'm-writing');
    const writer = await sessionOn(connection);
    try {
      await writer.query('BEGIN');
      await runOnPostgres(storing(picture), writer);

      expect((await b.sweepRetention()).deletedBlobs).toBe(0);

      await writer.query(`INSERT INTO blob_refs (turn_id, digest, owner) VALUES ($1, $2, 'transcript')`, [writing.turnId, blobDigest(picture)]);
      await writer.query('COMMIT');
    } finally {
      await writer.end();
    }
    expect(await onSchema(connection, 'SELECT digest FROM blobs')).toEqual([{ digest: blobDigest(picture) }]);
    expect((await b.sweepRetention()).deletedBlobs).toBe(0);
  });
});

/** An operation that stores `bytes` as a blob, as a write does before the row that refers to it. */
function* storing(bytes: Uint8Array): Op<void> {
  (yield* requiredBlobSink()).put(bytes);
}
