import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { tellReclaimed } from '../../src/app/interrupted_notices.js';
import { recordingSink, type SeenEvent } from '../support/recording_sink.js';
import { useTempDir } from '../support/temp_dir.js';
import { admitNew, openTestStore } from '../support/turn_store.js';

describe('the notices of interrupted turns', () => {
  const temp = useTempDir();

  it('tells the channel of each reclaimed turn of its transport that is still suspended, once, as a reply to its request', async () => {
    const { store } = openTestStore(temp.path());
    const reclaimed = await admitNew(store, 'm-1');
    await store.suspend(reclaimed, 'reclaimed after its owner stopped answering');
    const stillRunning = await admitNew(store, 'm-2');
    const events: SeenEvent[] = [];

    await tellReclaimed(store, recordingSink(events), 'console', [reclaimed.turnId, stillRunning.turnId, 'no-such-turn'], pino({ level: 'silent' }));
    await tellReclaimed(store, recordingSink(events), 'discord', [reclaimed.turnId], pino({ level: 'silent' }));

    expect(events).toEqual([
      {
        type: 'message',
        channelId: 'channel-1',
        inReplyTo: 'm-1',
        turn: reclaimed.turnId,
        kind: 'notice',
        notice: 'interrupted',
        text: 'The bot process working on this request stopped answering; its work is saved. Type `resume` to continue it.',
      },
    ]);
    await store.close();
  });

  it('logs a reclaimed turn it cannot read and goes on with the others', async () => {
    const { store } = openTestStore(temp.path());
    const lease = await admitNew(store, 'm-1');
    await store.suspend(lease, 'reclaimed');
    await store.close();
    const lines: Record<string, unknown>[] = [];
    const logger = pino({ level: 'error' }, { write: (line: string) => lines.push(JSON.parse(line) as Record<string, unknown>) });
    const events: SeenEvent[] = [];

    await tellReclaimed(store, recordingSink(events), 'console', [lease.turnId], logger);

    expect(events).toEqual([]);
    expect(lines.map((line) => [line['msg'], line['turn']])).toEqual([['a reclaimed turn could not be read: its channel is not told', lease.turnId]]);
  });
});
