import { readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../../src/llm/protocol.js';
import { admitNew, openTestStore, userText } from '../support/turn_store.js';
import { bytesUnder, filesUnder } from '../support/store_file.js';
import { useTempDir } from '../support/temp_dir.js';

const SECRETS = [
  'sk-live-abcdef1234567890ABCDEF',
  'opaque-key-value-9f8e7d',
  'hunter2-correct-horse',
  'sk-proj-AbCdEf0123456789abcdefGHIJ',
  'ghp_0123456789abcdefghijABCDEFGHIJ012345',
  'another-opaque-secret-42',
  'session=cookie-value-77x',
  'client-secret-value-551',
];

const INPUT: JsonObject = {
  city: 'Oslo',
  headers: { Authorization: `Bearer ${SECRETS[0]}`, 'x-api-key': SECRETS[5] ?? '' },
  api_key: SECRETS[1] ?? '',
  accounts: [{ user: 'ada', credentials: [{ password: SECRETS[2] ?? '' }] }],
  note: `use ${SECRETS[3]} for the call`,
  oauth: { client_secret: SECRETS[7] ?? '', cookie: SECRETS[6] ?? '' },
};

describe('secrets at rest (DESIGN §7.6)', () => {
  const temp = useTempDir();

  it('keeps no planted secret in the bytes of the database, its WAL or the blob files, while the data itself is there', async () => {
    const { store, dbPath } = openTestStore(temp.path());
    const lease = await admitNew(store, 'm-1');
    const call = { type: 'tool_use' as const, id: 'call-1', name: 'fetch_weather', input: INPUT };
    await store.recordModelTurn(lease, { step: 1, assistant: { role: 'assistant', content: [call] }, intents: [{ toolCallId: 'call-1', toolName: 'fetch_weather', input: INPUT, effect: 'write' }] });
    const key = { turnId: lease.turnId, step: 1, toolCallId: 'call-1' };
    await store.moveOp(lease, key, { to: 'RUNNING' });
    const small = JSON.stringify({ forecast: 'Oslo: snow', echo: INPUT, token: SECRETS[4] });
    const large = `${JSON.stringify({ forecast: 'Oslo: long range', headers: { authorization: `Bearer ${SECRETS[0]}` } })}${' Oslo'.repeat(5_000)} ${SECRETS[4]}`;
    await store.moveOp(lease, key, { to: 'APPLIED', result: large });
    await store.checkpoint(lease, {
      append: [
        { role: 'tool', content: [{ type: 'tool_result', toolUseId: 'call-1', content: small, isError: false }] },
        { role: 'tool', content: [{ type: 'tool_result', toolUseId: 'call-2', content: large, isError: false }] },
        userText('thanks'),
      ],
      state: { step: 1 },
      progressed: true,
    });
    const second = { turnId: lease.turnId, step: 2, toolCallId: 'call-3' };
    await store.recordModelTurn(lease, {
      step: 2,
      assistant: { role: 'assistant', content: [{ ...call, id: 'call-3' }] },
      intents: [{ toolCallId: 'call-3', toolName: 'fetch_weather', input: INPUT, effect: 'write' }],
    });
    await store.moveOp(lease, second, { to: 'RUNNING' });
    await store.moveOp(lease, second, { to: 'OUTCOME_UNKNOWN', error: `timed out calling https://api.example.com/x?api_key=${SECRETS[1]} with ${SECRETS[3]}` });

    const files = filesUnder(dirname(dbPath));
    expect(files.some((f) => f.endsWith('-wal'))).toBe(true);
    expect(files.some((f) => f.includes('blobs'))).toBe(true);
    const bytes = Buffer.concat(files.map((f) => readFileSync(f)));
    for (const secret of SECRETS) expect(bytes.includes(secret), secret).toBe(false);
    expect(bytes.includes('Oslo: snow')).toBe(true);
    expect(bytes.includes('Oslo: long range')).toBe(true);

    const ops = await store.listOps(lease.turnId);
    expect(ops[0]?.input).toMatchObject({ city: 'Oslo', headers: { Authorization: '[REDACTED]' }, api_key: '[REDACTED]' });
    expect(ops[0]?.result).toContain('Oslo: long range');
    await store.close();
  });

  it('keeps credentials that a tool error body or result quotes in running text out of the store file', async () => {
    const { store, dbPath } = openTestStore(temp.path());
    const lease = await admitNew(store, 'm-1');
    const call = { type: 'tool_use' as const, id: 'call-1', name: 'send_mail', input: { to: 'ada' } };
    await store.recordModelTurn(lease, {
      step: 1,
      assistant: { role: 'assistant', content: [call] },
      intents: [{ toolCallId: 'call-1', toolName: 'send_mail', input: { to: 'ada' }, effect: 'write' }],
    });
    const key = { turnId: lease.turnId, step: 1, toolCallId: 'call-1' };
    await store.moveOp(lease, key, { to: 'RUNNING' });
    const error = 'POST https://mail.example answered HTTP 401. The server said: {"detail":"invalid token=opaque-token-7f3e9a, use api_key=opaque-key-1b2c3d"}';
    await store.moveOp(lease, key, { to: 'DEFINITELY_FAILED', error });
    await store.checkpoint(lease, {
      append: [{ role: 'tool', content: [{ type: 'tool_result', toolUseId: 'call-1', content: error, isError: true }] }],
      state: { step: 1 },
      progressed: true,
    });

    const bytes = bytesUnder(dirname(dbPath));
    for (const secret of ['opaque-token-7f3e9a', 'opaque-key-1b2c3d']) expect(bytes.includes(secret), secret).toBe(false);
    expect((await store.listOps(lease.turnId))[0]?.error).toContain('answered HTTP 401');
    await store.close();
  });
});
