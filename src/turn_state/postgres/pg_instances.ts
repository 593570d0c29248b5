import { hostname } from 'node:os';
import type { PgQueryable } from './pg_pool.js';

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
