/** A gateway shard as IDENTIFY names it, `[shard_id, num_shards]`. */
export type Shard = readonly [id: number, count: number];

/** The shard of a client that names none in IDENTIFY: the whole bot. */
export const WHOLE_BOT: Shard = [0, 1];

/** The shard IDENTIFY's `shard` field names: {@link WHOLE_BOT} when absent, `undefined` when it is no shard (`id` not below `count`). */
export function identifiedShard(field: unknown): Shard | undefined {
  if (field === undefined || field === null) return WHOLE_BOT;
  if (!Array.isArray(field) || field.length !== 2) return undefined;
  const [id, count] = field as unknown[];
  if (!Number.isInteger(id) || !Number.isInteger(count)) return undefined;
  const shard: Shard = [id as number, count as number];
  return shard[0] >= 0 && shard[0] < shard[1] ? shard : undefined;
}

/** The shard of `count` that receives a guild's events, as Discord routes them: `(guild_id >> 22) % count`. */
export function guildShard(guildId: string, count: number): number {
  return Number((BigInt(guildId) >> 22n) % BigInt(count));
}

/** Whether `shard` receives the events of `guildId`; direct messages (no guild) go to shard 0. */
export function receives(shard: Shard, guildId: string | undefined): boolean {
  const [id, count] = shard;
  return guildId === undefined ? id === 0 : guildShard(guildId, count) === id;
}

/** Whether two shards are the same one. */
export function sameShard(a: Shard, b: Shard): boolean {
  return a[0] === b[0] && a[1] === b[1];
}
