/**
 * The content-addressed blob directory beside the turn database (DESIGN §7.1): large payloads
 * stored once under their SHA-256 digest, written tmp-file + fsync + rename, directories created
 * 0700 and files 0600. Synchronous, like the SQLite store that calls it.
 */
import { createHash } from 'node:crypto';
import { closeSync, existsSync, fsyncSync, openSync, readdirSync, readFileSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { makePrivateDirectory, PRIVATE_FILE_MODE } from './private_files.js';

const DIGEST = /^[0-9a-f]{64}$/;

/** Where a payload's bytes are put when it is stored: answers the digest they are kept under. */
export interface BlobSink {
  put(bytes: Uint8Array): string;
}

/** Where a stored payload's bytes are read back from by digest. */
export interface BlobSource {
  get(digest: string): Buffer;
}

/** The name a blob is kept under: the SHA-256 of its bytes, in lower-case hex. */
export function blobDigest(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}
const SHARD = /^[0-9a-f]{2}$/;

/** Codes with which a platform refuses to open or fsync a directory; durability is best effort there. */
const DIR_SYNC_REFUSALS: ReadonlySet<string> = new Set(['EISDIR', 'EPERM', 'EACCES', 'EINVAL', 'ENOTSUP']);

/** Makes every temp-file name of this process unique. */
let tempCounter = 0;

/** Blobs stored by the SHA-256 of their bytes, at `<dir>/<first two hex digits>/<digest>`. */
export class BlobStore implements BlobSink, BlobSource {
  private constructor(
    /** The blob directory, mode 0700 when the store created it. */
    readonly dir: string,
  ) {}

  /** Opens the blob directory `dir`, creating it (and missing parents) 0700 if needed; an existing one keeps its mode. */
  static open(dir: string): BlobStore {
    makePrivateDirectory(dir);
    return new BlobStore(dir);
  }

  /** Stores `bytes` durably unless a blob with the same content is already there; returns its digest. */
  put(bytes: Uint8Array): string {
    const digest = blobDigest(bytes);
    const file = this.pathOf(digest);
    if (existsSync(file)) return digest;
    const shard = join(this.dir, digest.slice(0, 2));
    makePrivateDirectory(shard);
    const temp = writeTemp(shard, digest, bytes);
    try {
      renameSync(temp, file);
    } catch (error) {
      removeIfPresent(temp);
      throw error;
    }
    fsyncDirectory(shard);
    return digest;
  }

  /** The bytes stored under `digest`; throws when there are none. */
  get(digest: string): Buffer {
    try {
      return readFileSync(this.pathOf(digest));
    } catch (error) {
      throw isMissing(error) ? this.missing(digest, error) : error;
    }
  }

  /** Whether a blob is stored under `digest`. */
  has(digest: string): boolean {
    return existsSync(this.pathOf(digest));
  }

  /** Removes the blob stored under `digest`; false when there was none. */
  delete(digest: string): boolean {
    return removeIfPresent(this.pathOf(digest));
  }

  /** Every digest stored, sorted; temp files and stray names are not blobs. */
  list(): string[] {
    const digests: string[] = [];
    for (const shard of readdirSync(this.dir, { withFileTypes: true })) {
      if (!shard.isDirectory() || !SHARD.test(shard.name)) continue;
      for (const name of readdirSync(join(this.dir, shard.name))) {
        if (DIGEST.test(name) && name.startsWith(shard.name)) digests.push(name);
      }
    }
    return digests.sort();
  }

  private pathOf(digest: string): string {
    if (!DIGEST.test(digest)) {
      throw new Error(`not a blob digest (64 lowercase hex characters): ${JSON.stringify(digest)}`);
    }
    return join(this.dir, digest.slice(0, 2), digest);
  }

  private missing(digest: string, cause: unknown): Error {
    return new Error(`blob ${digest} is not in the blob store at ${this.dir}`, { cause });
  }
}

/** Writes `bytes` to a new temp file (mode 0600) in `shard`, fsyncs and closes it; returns its path. */
function writeTemp(shard: string, digest: string, bytes: Uint8Array): string {
  const { fd, path } = openNewTemp(shard, digest);
  let complete = false;
  try {
    for (let written = 0; written < bytes.length;) {
      written += writeSync(fd, bytes, written, bytes.length - written);
    }
    fsyncSync(fd);
    complete = true;
  } finally {
    closeSync(fd);
    if (!complete) removeIfPresent(path);
  }
  return path;
}

/**
 * Creates a temp file that did not exist before. A name is taken again only when a crashed
 * process with the same pid left it behind, so that one is skipped, never overwritten.
 */
function openNewTemp(shard: string, digest: string): { readonly fd: number; readonly path: string } {
  for (;;) {
    tempCounter += 1;
    const path = join(shard, `${digest}.${process.pid}.${tempCounter}.tmp`);
    try {
      return { fd: openSync(path, 'wx', PRIVATE_FILE_MODE), path };
    } catch (error) {
      if (errorCode(error) !== 'EEXIST') throw error;
    }
  }
}

/** Makes a rename inside `dir` durable, where the platform allows fsync on a directory. */
function fsyncDirectory(dir: string): void {
  let fd: number;
  try {
    fd = openSync(dir, 'r');
  } catch (error) {
    if (isRefusal(error)) return;
    throw error;
  }
  try {
    fsyncSync(fd);
  } catch (error) {
    if (!isRefusal(error)) throw error;
  } finally {
    closeSync(fd);
  }
}

function removeIfPresent(path: string): boolean {
  try {
    unlinkSync(path);
    return true;
  } catch (error) {
    if (isMissing(error)) return false;
    throw error;
  }
}

function errorCode(error: unknown): unknown {
  return error instanceof Error && 'code' in error ? error.code : undefined;
}

function isMissing(error: unknown): boolean {
  return errorCode(error) === 'ENOENT';
}

function isRefusal(error: unknown): boolean {
  const code = errorCode(error);
  return typeof code === 'string' && DIR_SYNC_REFUSALS.has(code);
}
