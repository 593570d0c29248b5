import { blobDigest, type BlobSink, type BlobSource } from '../blob_store.js';
import type { PgQueryable } from './pg_pool.js';

/**
 * The blobs a write puts, held until {@link PendingBlobs.writeTo} stores them as `blobs` rows in
 * the write's transaction, before any row that refers to them. Bytes already stored under the
 * same digest are not written again, but their row is locked until the write commits, so that
 * blob collection (which skips locked rows) cannot delete it before the reference is stored.
 */
export class PendingBlobs implements BlobSink {
  readonly #bytes = new Map<string, Uint8Array>();

  put(bytes: Uint8Array): string {
    const digest = blobDigest(bytes);
    this.#bytes.set(digest, bytes);
    return digest;
  }

  async writeTo(db: PgQueryable): Promise<void> {
    // In digest order, so that two writers storing the same blobs lock them in the same order and never deadlock.
    for (const [digest, bytes] of [...this.#bytes].sort(([a], [b]) => (a < b ? -1 : 1))) {
      await db.query('INSERT INTO blobs (digest, bytes) VALUES ($1, $2) ON CONFLICT (digest) DO UPDATE SET bytes = blobs.bytes', [digest, Buffer.from(bytes)]);
    }
    this.#bytes.clear();
  }
}

/** Blobs read ahead of decoding, answering by digest; one that was not read is missing. */
class LoadedBlobs implements BlobSource {
  constructor(private readonly bytes: ReadonlyMap<string, Buffer>) {}

  get(digest: string): Buffer {
    const bytes = this.bytes.get(digest);
    if (bytes === undefined) throw new Error(`blob ${digest} is missing from the store`);
    return bytes;
  }
}

/**
 * The blobs `query` selects (its statement answers `digest` and `bytes` rows), ready for
 * synchronous decoding.
 */
export async function loadBlobs(db: PgQueryable, query: string, values: readonly unknown[]): Promise<BlobSource> {
  const { rows } = await db.query<{ digest: string; bytes: Buffer }>(query, [...values]);
  return new LoadedBlobs(new Map(rows.map((row) => [row.digest, row.bytes])));
}

/** The blobs a turn's transcript and ledger refer to. */
export function blobsOfTurn(db: PgQueryable, turnId: string): Promise<BlobSource> {
  return loadBlobs(db, 'SELECT blobs.digest, blobs.bytes FROM blobs JOIN blob_refs USING (digest) WHERE blob_refs.turn_id = $1', [turnId]);
}
