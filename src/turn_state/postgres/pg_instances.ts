import { hostname } from 'node:os';
import type { PgQueryable } from './pg_pool.js';

/** A bot process sharing the store (DESIGN §7.7), as the `instances` registry keeps it. */
export interface InstanceRecord {
  readonly instanceId: string;
  readonly host: string;
  readonly pid: number;
  /** The Discord shards the process serves, as it describes them (`0,1 of 4`); `null` when it serves none. */
  readonly shards: string | null;
  readonly startedAt: number;
  readonly heartbeatAt: number;
  /** When it stopped cleanly; `null` while it runs, or when it died. */
  readonly stoppedAt: number | null;
}

interface InstanceRow {
  instance_id: string;
  host: string;
  pid: number;
  shards: string | null;
  started_at: number;
  heartbeat_at: number;
  stopped_at: number | null;
}

/** Registers this process under `instanceId`, started and last seen now by the database's clock. */
export async function registerInstance(db: PgQueryable, instanceId: string, shards: string | null): Promise<void> {
  await db.query('INSERT INTO instances (instance_id, host, pid, shards, started_at, heartbeat_at) VALUES ($1, $2, $3, $4, now_ms(), now_ms())', [instanceId, hostname(), process.pid, shards]);
}

/** Records that the process is alive now. */
export async function heartbeatInstance(db: PgQueryable, instanceId: string): Promise<void> {
  await db.query('UPDATE instances SET heartbeat_at = GREATEST(heartbeat_at, now_ms()) WHERE instance_id = $1', [instanceId]);
}

/** Records a clean stop. */
export async function stopInstance(db: PgQueryable, instanceId: string): Promise<void> {
  await db.query('UPDATE instances SET stopped_at = now_ms() WHERE instance_id = $1 AND stopped_at IS NULL', [instanceId]);
}

/** Every registered process, most recently started first. */
export async function listInstances(db: PgQueryable): Promise<InstanceRecord[]> {
  const { rows } = await db.query<InstanceRow>('SELECT * FROM instances ORDER BY started_at DESC, instance_id');
  return rows.map((row) => ({
    instanceId: row.instance_id,
    host: row.host,
    pid: row.pid,
    shards: row.shards,
    startedAt: row.started_at,
    heartbeatAt: row.heartbeat_at,
    stoppedAt: row.stopped_at,
  }));
}
