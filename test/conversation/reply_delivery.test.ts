import { noTurnStore } from '../../src/turn_state/no_store.js';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { everyChannelOf, ReplyUndeliverable, type FinalReply, type ReplySink } from '../../src/conversation/transport.js';
import { deliverPendingReplies, deliverReply, replyAuthorship, replyNotes } from '../../src/conversation/turns/reply_delivery.js';
import type { TurnStore } from '../../src/turn_state/turn_store.js';
import { useTempDir } from '../support/temp_dir.js';
import { admissionFor, admitNew, openTestStore } from '../support/turn_store.js';
import { storedReply } from '../support/stored_rows.js';
import { LEVEL, LogLines } from '../support/log_lines.js';

const silent = pino({ level: 'silent' });
const NOTE = '-# answered by <model>';

/** A transport that posts `parts` parts of every reply, confirming each but the last as it goes, or all of them and then fails with `failure` (if any), recording what it was asked. */
function transport(parts: number, failure?: Error): ReplySink & { asked: FinalReply[] } {
  const asked: FinalReply[] = [];
  return {
    asked,
    post: () => undefined,
    askApproval: () => Promise.resolve(undefined),
    async deliver(reply, confirmed) {
      asked.push(reply);
      const confirming = failure === undefined ? parts - 1 : parts;
      for (let part = reply.partsDelivered; part < confirming; part += 1) await confirmed(part + 1);
      if (failure !== undefined) throw failure;
      return parts;
    },
  };
}

describe('final reply delivery', () => {
  const temp = useTempDir();
  let store: TurnStore;
  let dbPath: string;

  beforeEach(() => {
    ({ store, dbPath } = openTestStore(temp.path()));
  });
  afterEach(async () => {
    await store.close();
  });

  async function completed(messageId: string, text: string): Promise<FinalReply> {
    const lease = await admitNew(store, messageId);
    await store.complete(lease, text);
    return { channelId: 'channel-1', inReplyTo: messageId, turn: lease.turnId, text, partsDelivered: 0, redelivery: false };
  }

  it('records a reply the transport confirmed as delivered, keeping no text', async () => {
    const reply = await completed('m1', 'Hello.');
    expect(await deliverReply(store, transport(1), reply, silent)).toBe('delivered');
    expect(storedReply(dbPath, reply.turn)).toMatchObject({ state: 'delivered', text: null, partsDelivered: 1 });
  });

  it('still delivers a reply whose delivery the store could not record, and logs it', async () => {
    const reply = await completed('m1', 'Hello.');
    const log = new LogLines('info');
    const failing: TurnStore = { ...store, recordReplyDelivery: () => Promise.reject(new Error('disk I/O error')) };
    expect(await deliverReply(failing, transport(1), reply, log.logger)).toBe('delivered');
    expect(log.lines.filter((line) => line.level >= LEVEL.error)).toEqual([
      expect.objectContaining({ level: 50, turn: reply.turn, progress: 'delivered', msg: 'could not record the delivery of a reply' }),
    ]);
  });

  it('keeps a reply pending with the parts confirmed so far when the transport fails, and posts only the rest after a restart', async () => {
    const reply = await completed('m1', 'Part one. Part two. Part three.');
    expect(await deliverReply(store, transport(2, new Error('Discord is down')), reply, silent)).toBe('pending');
    const pending = await store.listPendingReplies();
    expect(pending).toMatchObject([{ text: 'Part one. Part two. Part three.', partsDelivered: 2 }]);

    const after = transport(3);
    expect(await deliverPendingReplies(store, pending, { channels: everyChannelOf('console'), sink: after, fallbackNote: NOTE }, silent)).toEqual(['delivered']);
    expect(after.asked).toEqual([{ channelId: 'channel-1', inReplyTo: 'm1', turn: reply.turn, text: reply.text, partsDelivered: 2, redelivery: true }]);
    expect(await store.listPendingReplies()).toEqual([]);
    expect(storedReply(dbPath, reply.turn)).toMatchObject({ state: 'delivered', partsDelivered: 3 });
  });

  it('posts a pending reply after a restart marked with the model that wrote it, a fallback’s with the note below it', async () => {
    const byFallback = await admitNew(store, 'm1');
    await store.complete(byFallback, 'From the fallback.', { model: 'local-llama', fallback: true });
    const byPrimary = await admitNew(store, 'm2');
    await store.complete(byPrimary, 'From the primary.', { model: 'claude-main', fallback: false });
    const after = transport(1);
    expect(await deliverPendingReplies(store, await store.listPendingReplies(), { channels: everyChannelOf('console'), sink: after, fallbackNote: NOTE }, silent)).toEqual(['delivered', 'delivered']);
    expect(after.asked).toEqual([
      expect.objectContaining({ turn: byFallback.turnId, text: 'From the fallback.', model: 'local-llama', note: '-# answered by local-llama', redelivery: true }),
      { channelId: 'channel-1', inReplyTo: 'm2', turn: byPrimary.turnId, text: 'From the primary.', partsDelivered: 0, redelivery: true, model: 'claude-main' },
    ]);
  });

  it('gives a reply up when the transport refuses it for good, so that no restart posts it', async () => {
    const reply = await completed('m1', 'Hello.');
    expect(await deliverReply(store, transport(0, new ReplyUndeliverable(reply.turn, 'Missing Access')), reply, silent)).toBe('abandoned');
    expect(storedReply(dbPath, reply.turn)).toMatchObject({ state: 'abandoned', failure: 'Missing Access' });
    expect(await store.listPendingReplies()).toEqual([]);
  });

  it('posts only the pending replies of channels this process serves, and leaves the others pending for their own process', async () => {
    await completed('m1', 'Hello.');
    const other = await store.admit(admissionFor('m2', 'channel-2'));
    if (other.disposition !== 'admitted') throw new Error(`not admitted: ${other.disposition}`);
    await store.complete(other.lease, 'Hello there.');
    const [notServed] = (await store.listPendingReplies()).filter((reply) => reply.turn.identity.channelId === 'channel-1');
    const here = transport(1);
    const served = { source: 'console', serves: (channelId: string) => Promise.resolve(channelId === 'channel-2') };
    expect(await deliverPendingReplies(store, await store.listPendingReplies(), { channels: served, sink: here, fallbackNote: NOTE }, silent)).toEqual(['delivered']);
    expect(here.asked.map((reply) => reply.text)).toEqual(['Hello there.']);
    expect(await store.listPendingReplies()).toEqual([notServed]);
  });

  it('leaves another transport’s pending replies to it', async () => {
    await completed('m1', 'Hello.');
    const discord = transport(1);
    expect(await deliverPendingReplies(store, await store.listPendingReplies(), { channels: everyChannelOf('discord'), sink: discord, fallbackNote: NOTE }, silent)).toEqual([]);
    expect(discord.asked).toEqual([]);
    expect(await store.listPendingReplies()).toHaveLength(1);
  });

  it('still delivers when durability is off, with nothing to record', async () => {
    const sink = transport(1);
    const reply: FinalReply = { channelId: 'c', inReplyTo: 'm', turn: 'no-store', text: 'Hi.', partsDelivered: 0, redelivery: false };
    expect(await deliverReply(noTurnStore(), sink, reply, silent)).toBe('delivered');
    expect(sink.asked).toHaveLength(1);
  });
});

describe('the lines below a reply', () => {
  it('puts how long the model thought below the fallback’s note, or alone, and adds nothing without it', () => {
    const byFallback = replyAuthorship({ model: 'local-llama', fallback: true }, '-# answered by <model>');
    expect(replyNotes(byFallback, '-# thought for 12 s')).toEqual({ model: 'local-llama', note: '-# answered by local-llama\n-# thought for 12 s' });
    expect(replyNotes(replyAuthorship({ model: 'main', fallback: false }, '-# answered by <model>'), '-# thought for 3 s')).toEqual({ model: 'main', note: '-# thought for 3 s' });
    expect(replyNotes(byFallback, undefined)).toBe(byFallback);
  });
});
