import type { TestProject } from 'vitest/node';
import { startEmbeddedPostgres } from './embedded_postgres.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The URL of the PostgreSQL server the suites share: `HOLDFAST_TEST_POSTGRES_URL`, or one started for the run. */
    postgresUrl: string;
  }
}

/**
 * Gives the suites a real PostgreSQL server: the one `HOLDFAST_TEST_POSTGRES_URL` names, or a
 * fresh one from the `embedded-postgres` package for this run, stopped and removed after it.
 */
export default async function postgresServer(project: TestProject): Promise<(() => Promise<void>) | undefined> {
  const given = process.env['HOLDFAST_TEST_POSTGRES_URL'];
  if (given !== undefined && given !== '') {
    project.provide('postgresUrl', given);
    return undefined;
  }
  const server = await startEmbeddedPostgres({ durable: false });
  project.provide('postgresUrl', server.url);
  return () => server.stop();
}
