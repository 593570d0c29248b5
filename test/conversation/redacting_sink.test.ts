import { describe, expect, it } from 'vitest';
import { redactingSink } from '../../src/conversation/notices/redacting_sink.js';
import { NO_SECRETS, SecretValues } from '../../src/core/secret_values.js';
import { recordingSink, type SeenEvent } from '../support/recording_sink.js';

const KEY = 'opaque-model-key-4f9a2c71';
const secrets = SecretValues.of([KEY]);
const at = { channelId: 'c1', inReplyTo: 'm-1', turn: 't-1' } as const;

/** What a person sees of the events: deltas joined into the draft, anything else as its kind and text. */
function seen(events: readonly SeenEvent[]): string[] {
  const shown: string[] = [];
  for (const event of events) {
    if (event.type === 'delta') {
      const last = shown.at(-1);
      if (last?.startsWith('draft: ') === true) shown[shown.length - 1] = last + event.text;
      else shown.push(`draft: ${event.text}`);
    } else if (event.type === 'message') shown.push(`${event.kind}: ${event.text}${event.kind === 'reply' && event.note !== undefined ? ` / ${event.note}` : ''}`);
    else if (event.type === 'waiting' || event.type === 'notice_update' || event.type === 'working' || event.type === 'approval_settled' || event.type === 'approval_asked')
      shown.push(`${event.type}: ${event.text}`);
    else shown.push(`turn: ${event.status}`);
  }
  return shown;
}

describe('what the bot posts, kept free of the configured secrets', () => {
  it('redacts a secret the model streams across deltas in the draft, and the same in the reply posted after it', async () => {
    const events: SeenEvent[] = [];
    const sink = redactingSink(recordingSink(events), secrets);
    sink.post({ type: 'turn', channelId: 'c1', turn: 't-1', status: 'ACTIVE' });
    for (const text of ['Your key is opaque-mo', 'del-key-', '4f9a2c71. Keep it', ' safe.']) sink.post({ type: 'delta', ...at, text });
    await sink.deliver({ ...at, text: `Your key is ${KEY}. Keep it safe.`, partsDelivered: 0, redelivery: false, note: `-# answered by ${KEY}` }, () => Promise.resolve());

    expect(seen(events)).toEqual(['turn: ACTIVE', 'draft: Your key is [REDACTED]. Keep it safe.', 'reply: Your key is [REDACTED]. Keep it safe. / -# answered by [REDACTED]']);
    expect(JSON.stringify(events)).not.toContain('4f9a2c71');
  });

  it('shows what a draft held back before the notice that ends its turn, and drops it when the draft starts afresh', () => {
    const events: SeenEvent[] = [];
    const sink = redactingSink(recordingSink(events), secrets);
    sink.post({ type: 'delta', ...at, text: 'trying opaque-' });
    sink.post({ type: 'waiting', ...at, attempt: 2, text: `the model answered: invalid key ${KEY}` });
    sink.post({ type: 'delta', ...at, text: 'the kettle: opaque-' });
    sink.post({ type: 'message', channelId: 'c1', inReplyTo: 'm-1', turn: 't-1', kind: 'notice', notice: 'suspended', text: `saved; ${KEY} refused` });
    sink.post({ type: 'notice_update', channelId: 'c1', turn: 't-1', notice: 'suspended', text: `still ${KEY}` });

    expect(seen(events)).toEqual([
      'draft: trying ',
      'waiting: the model answered: invalid key [REDACTED]',
      'draft: the kettle: opaque-',
      'notice: saved; [REDACTED] refused',
      'notice_update: still [REDACTED]',
    ]);
  });

  it('redacts a request for approval and its answer, showing first what the turn’s draft held back', async () => {
    const events: SeenEvent[] = [];
    const sink = redactingSink(recordingSink(events), secrets);
    sink.post({ type: 'delta', ...at, text: 'calling opaque-' });
    expect(await sink.askApproval({ ...at, approvalId: 'hf_1', call: 'w1', text: `send ${KEY}?` })).toBe('asked:hf_1');
    sink.post({ type: 'approval_settled', channelId: 'c1', messageId: 'asked:hf_1', text: `sent ${KEY}: approved` });

    expect(seen(events)).toEqual(['draft: calling opaque-', 'approval_asked: send [REDACTED]?', 'approval_settled: sent [REDACTED]: approved']);
  });

  it('is the sink itself when no secret is configured', () => {
    const sink = recordingSink([]);
    expect(redactingSink(sink, NO_SECRETS)).toBe(sink);
  });
});
