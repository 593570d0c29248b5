import { describe, expect, it } from 'vitest';
import type { FinalReply } from '../../src/conversation/transport.js';
import { consoleMessageIds } from '../../src/console/console_adapter.js';
import { jsonLinesSink, textSink } from '../../src/console/console_sink.js';
import { RandomIds } from '../../src/core/ids.js';

function reply(turn: string, text: string): FinalReply {
  return { channelId: 'console', inReplyTo: 'm', turn, text, partsDelivered: 0, redelivery: false };
}

function capture(): { write: (text: string) => void; text: () => string } {
  const parts: string[] = [];
  return { write: (text) => void parts.push(text), text: () => parts.join('') };
}

describe('the console output', () => {
  it('speaks the documented JSON lines: ready, replies, messages with their notice, turn statuses, and no deltas', async () => {
    const out = capture();
    const sink = jsonLinesSink(out);
    const confirmed: number[] = [];
    sink.ready();
    sink.post({ type: 'turn', channelId: 'console', turn: 't1', status: 'ACTIVE' });
    sink.post({ type: 'delta', channelId: 'console', inReplyTo: 'm', turn: 't1', text: 'Hel' });
    await sink.deliver(reply('t1', 'Hello.'), (parts) => Promise.resolve(void confirmed.push(parts)));
    sink.post({ type: 'message', channelId: 'console', inReplyTo: 'm', turn: null, kind: 'notice', notice: 'busy', text: 'Busy.' });
    expect(out.text().trimEnd().split('\n').map((line) => JSON.parse(line) as unknown)).toEqual([
      { type: 'ready' },
      { type: 'turn', turn: 't1', status: 'ACTIVE' },
      { type: 'message', turn: 't1', kind: 'reply', text: 'Hello.' },
      { type: 'message', turn: null, kind: 'notice', notice: 'busy', text: 'Busy.' },
    ]);
    expect(confirmed).toEqual([1]);
  });

  it('streams a reply as it is written, marks notices for people and shows no status changes', async () => {
    const out = capture();
    const sink = textSink(out);
    const confirm = (): Promise<void> => Promise.resolve();
    sink.post({ type: 'turn', channelId: 'console', turn: 't1', status: 'ACTIVE' });
    sink.post({ type: 'delta', channelId: 'console', inReplyTo: 'm', turn: 't1', text: 'Hel' });
    sink.post({ type: 'delta', channelId: 'console', inReplyTo: 'm', turn: 't1', text: 'lo.' });
    await sink.deliver(reply('t1', 'Hello.'), confirm);
    sink.post({ type: 'message', channelId: 'console', inReplyTo: 'm', turn: 't2', kind: 'notice', notice: 'suspended', text: 'Saved.' });
    await sink.deliver(reply('t3', 'Not streamed.'), confirm);
    expect(out.text()).toBe('bot> Hello.\n[suspended] Saved.\nbot> Not streamed.\n');
  });
});

describe('console message ids', () => {
  it('never repeat across two runs, and sort in the order of the lines within a run', () => {
    const first = consoleMessageIds(new RandomIds());
    const firstRun = Array.from({ length: 12 }, () => first());
    const second = consoleMessageIds(new RandomIds());
    const secondRun = [second(), second()];
    expect(new Set([...firstRun, ...secondRun]).size).toBe(14);
    expect([...firstRun].sort()).toEqual(firstRun);
  });
});
