import { cpSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { packagedBinaries, startEmbeddedPostgres } from './embedded_postgres.js';

describe('the tests’ PostgreSQL server', { timeout: 60_000 }, () => {
  it('starts from binaries in a folder only its owner may enter, as a checkout in root’s home or in a `mktemp -d` folder is, and goes away when stopped', async () => {
    const closed = mkdtempSync(join(tmpdir(), 'holdfast-closed-'));
    try {
      expect(statSync(closed).mode & 0o777).toBe(0o700);
      cpSync(packagedBinaries(), join(closed, 'native'), { recursive: true, verbatimSymlinks: true });
      const server = await startEmbeddedPostgres({ durable: false, binaries: join(closed, 'native') });
      const client = new pg.Client(server.url);
      try {
        await client.connect();
        expect((await client.query<{ encoding: string }>(`SELECT current_setting('server_encoding') AS encoding`)).rows).toEqual([{ encoding: 'UTF8' }]);
      } finally {
        await client.end();
        await server.stop();
      }
      const refused = new pg.Client(server.url);
      await expect(refused.connect()).rejects.toMatchObject({ code: 'ECONNREFUSED' });
    } finally {
      rmSync(closed, { recursive: true, force: true });
    }
  });
});
