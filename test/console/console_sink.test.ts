import { PassThrough } from 'node:stream';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { FinalReply } from '../../src/conversation/transport.js';
import { consoleMessageIds } from '../../src/console/console_adapter.js';
import { ConsoleScreen } from '../../src/console/console_screen.js';
import { jsonLinesSink, textSink } from '../../src/console/console_sink.js';
import { RandomIds } from '../../src/core/ids.js';
import { terminalControlsIn } from '../support/terminal_controls.js';

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
    expect(await sink.deliver(reply('t1', 'Hello.'), (parts) => Promise.resolve(void confirmed.push(parts)))).toBe(1);
    sink.post({ type: 'message', channelId: 'console', inReplyTo: 'm', turn: null, kind: 'notice', notice: 'busy', text: 'Busy.' });
    expect(
      out
        .text()
        .trimEnd()
        .split('\n')
        .map((line) => JSON.parse(line) as unknown),
    ).toEqual([
      { type: 'ready' },
      { type: 'turn', turn: 't1', status: 'ACTIVE' },
      { type: 'message', turn: 't1', kind: 'reply', text: 'Hello.' },
      { type: 'message', turn: null, kind: 'notice', notice: 'busy', text: 'Busy.' },
    ]);
    expect(confirmed).toEqual([]);
  });

  it('streams a reply as it is written, marks notices for people and shows no status changes', async () => {
    const out = capture();
    const sink = textSink(new ConsoleScreen(out));
    const confirm = (): Promise<void> => Promise.resolve();
    sink.post({ type: 'turn', channelId: 'console', turn: 't1', status: 'ACTIVE' });
    sink.post({ type: 'delta', channelId: 'console', inReplyTo: 'm', turn: 't1', text: 'Hel' });
    sink.post({ type: 'delta', channelId: 'console', inReplyTo: 'm', turn: 't1', text: 'lo.' });
    await sink.deliver(reply('t1', 'Hello.'), confirm);
    sink.post({ type: 'message', channelId: 'console', inReplyTo: 'm', turn: 't2', kind: 'notice', notice: 'suspended', text: 'Saved.' });
    await sink.deliver(reply('t3', 'Not streamed.'), confirm);
    expect(out.text()).toBe('bot> Hello.\n-- [suspended] Saved.\nbot> Not streamed.\n');
  });

  it('asks for approval with the command that answers it, as a JSON line or for people, and has no message to edit once answered', async () => {
    const ask = { channelId: 'console', inReplyTo: 'm', turn: 't1', approvalId: 'hf_1', call: 'w1', text: 'Approval needed: `save_note`.' };
    const settled = { type: 'approval_settled', channelId: 'console', messageId: 'x', text: 'Approved.' } as const;
    const lines = capture();
    const json = jsonLinesSink(lines);
    expect(await json.askApproval(ask)).toBeUndefined();
    json.post(settled);
    expect(JSON.parse(lines.text())).toEqual({ type: 'approval', turn: 't1', call: 'w1', text: 'Approval needed: `save_note`.' });

    const out = capture();
    const text = textSink(new ConsoleScreen(out));
    text.post({ type: 'delta', channelId: 'console', inReplyTo: 'm', turn: 't1', text: 'Let me' });
    expect(await text.askApproval(ask)).toBeUndefined();
    text.post(settled);
    expect(out.text()).toBe('bot> Let me\n-- [status] Approval needed: `save_note`.\n   Answer with `/approve w1` or `/deny w1 [note]`.\n');
  });

  it('shows one status line for each attempt a turn waits for in each run, ending a streamed line first; the JSON lines carry no waits', async () => {
    const out = capture();
    const sink = textSink(new ConsoleScreen(out));
    const json = capture();
    const jsonSink = jsonLinesSink(json);
    const waiting = (attempt: number, seconds: number) =>
      ({ type: 'waiting', channelId: 'console', inReplyTo: 'm', turn: 't1', attempt, text: `waiting for the model (attempt ${attempt}, ${seconds} s)…` }) as const;
    for (const target of [sink, jsonSink]) {
      target.post({ type: 'delta', channelId: 'console', inReplyTo: 'm', turn: 't1', text: 'Hal' });
      target.post(waiting(2, 0));
      target.post(waiting(2, 30));
      target.post(waiting(3, 41));
      target.post({ type: 'delta', channelId: 'console', inReplyTo: 'm', turn: 't1', text: 'Hello.' });
      await target.deliver(reply('t1', 'Hello.'), () => Promise.resolve());
    }
    expect(out.text()).toBe('bot> Hal\n… waiting for the model (attempt 2, 0 s)…\n… waiting for the model (attempt 3, 41 s)…\nbot> Hello.\n');
    expect(json.text()).toBe('{"type":"message","turn":"t1","kind":"reply","text":"Hello."}\n');

    // A turn suspended while waiting for attempt 2 runs again on `resume`, and waits for its attempt 2 again.
    const again = capture();
    const resumed = textSink(new ConsoleScreen(again));
    resumed.post({ type: 'turn', channelId: 'console', turn: 't2', status: 'ACTIVE' });
    resumed.post({ ...waiting(2, 0), turn: 't2' });
    resumed.post({ type: 'turn', channelId: 'console', turn: 't2', status: 'SUSPENDED' });
    resumed.post({ type: 'turn', channelId: 'console', turn: 't2', status: 'ACTIVE' });
    resumed.post({ ...waiting(2, 0), turn: 't2' });
    expect(again.text()).toBe('… waiting for the model (attempt 2, 0 s)…\n… waiting for the model (attempt 2, 0 s)…\n');
  });
});

describe('the console, while tools run', () => {
  it('shows what the tools do as one status line each time it changes, ending a streamed line first; the JSON lines carry none of it', async () => {
    const out = capture();
    const json = capture();
    const working = (text: string) => ({ type: 'working', channelId: 'console', inReplyTo: 'm', turn: 't1', text }) as const;
    for (const target of [textSink(new ConsoleScreen(out)), jsonLinesSink(json)]) {
      target.post({ type: 'delta', channelId: 'console', inReplyTo: 'm', turn: 't1', text: 'Let me look.' });
      target.post(working('running lookup…'));
      target.post(working('running lookup…'));
      target.post(working('running lookup, weather…'));
      target.post({ type: 'delta', channelId: 'console', inReplyTo: 'm', turn: 't1', text: 'Found it.' });
      await target.deliver(reply('t1', 'Found it.'), () => Promise.resolve());
    }
    expect(out.text()).toBe('bot> Let me look.\n… running lookup…\n… running lookup, weather…\nbot> Found it.\n');
    expect(json.text()).toBe('{"type":"message","turn":"t1","kind":"reply","text":"Found it."}\n');
  });
});

/** What `write` prints through a text sink into a real stream, read back once the stream ends. */
async function printed(write: (sink: ReturnType<typeof textSink>) => Promise<unknown>): Promise<string> {
  const out = new PassThrough();
  out.setEncoding('utf8');
  await write(textSink(new ConsoleScreen(out)));
  out.end();
  let text = '';
  for await (const chunk of out) text += String(chunk);
  return text;
}

const confirm = (): Promise<void> => Promise.resolve();
const delta = (text: string) => ({ type: 'delta', channelId: 'console', inReplyTo: 'm', turn: 't1', text }) as const;

// A fixed seed keeps every run (and so the coverage ratchet) reproducible; change it to explore further.
const RUNS = { numRuns: 300, seed: 20_260_514 };

/** Cuts `text` into pieces at `cuts` (positions, taken modulo its length). */
function pieces(text: string, cuts: readonly number[]): string[] {
  const at = [...new Set(cuts.map((cut) => cut % (text.length + 1)))].sort((a, b) => a - b);
  return [0, ...at].map((start, i) => text.slice(start, at[i] ?? text.length)).filter((piece) => piece !== '');
}

describe('the text console, on what the model writes', () => {
  it('prints streamed and whole replies and notices without control characters or escape sequences, even one split between deltas', async () => {
    const text = await printed(async (sink) => {
      for (const piece of [
        'Hello \u001b]0;owned\u0007world',
        '\u001b[2',
        'J, \u001b',
        '[31mred\u001b[0m',
        ' \u009b1;1H\u0008\r\n',
        'then\u001b]8;;http://e.x/\u001b',
        '\\link\u001b]8;;\u001b\\.\u001b',
      ]) {
        sink.post(delta(piece));
      }
      await sink.deliver(reply('t1', 'ignored: already streamed'), confirm);
      sink.post({ type: 'message', channelId: 'console', inReplyTo: 'm', turn: 't2', kind: 'notice', notice: 'failed', text: 'The model said \u001b[2Jno\u0000.' });
      await sink.deliver(reply('t3', '\u001bcReset\ttab \u001b[?25lhidden\u007f\u0007'), confirm);
    });
    expect(text).toBe('bot> Hello world, red \nthenlink.\n-- [failed] The model said no.\nbot> Reset\ttab hidden\n');
    expect(terminalControlsIn(text)).toEqual([]);
  });

  it('keeps the text after a sequence broken off, and ends an unterminated one at the end of its line', async () => {
    const text = await printed(async (sink) => {
      for (const piece of ['a\u001b\u001b[2Jb', 'c\u001b[12\nd\u001bé', ' \u001b]0;a title never ended\nvisible']) sink.post(delta(piece));
      await sink.deliver(reply('t1', ''), confirm);
    });
    expect(text).toBe('bot> abc\ndé \nvisible\n');
  });

  it('prints the same safe text however a reply is cut into deltas, and only the text between sequences', async () => {
    const plain = fc.string({ unit: fc.constantFrom('a', 'Z', '1', ' ', '[', ']', ';', '\\', 'é', '\n', '\t'), maxLength: 8 });
    const sequence = fc.constantFrom(
      '\u001b[2J',
      '\u001b[31;1m',
      '\u001b[?25h',
      '\u001b]0;title\u0007',
      '\u001b]8;;http://e.x/\u001b\\',
      '\u009b2J',
      '\u009d0;t\u009c',
      '\u001bc',
      '\u001b(B',
      '\u001bP1$r\u001b\\',
      '\u0007',
      '\r',
      '\u0000',
      '\u0008',
      '\u007f',
      '\u0085',
    );
    const segments = fc.array(
      fc.oneof(
        plain.map((text) => ({ text, shown: text })),
        sequence.map((text) => ({ text, shown: '' })),
      ),
      { maxLength: 12 },
    );
    await fc.assert(
      fc.asyncProperty(segments, fc.array(fc.nat(), { maxLength: 10 }), async (parts, cuts) => {
        const whole = parts.map((part) => part.text).join('');
        const shown = parts.map((part) => part.shown).join('');
        const streamed = await printed(async (sink) => {
          for (const piece of pieces(whole, cuts)) sink.post(delta(piece));
          await sink.deliver(reply('t1', whole), confirm);
        });
        const delivered = await printed((sink) => sink.deliver(reply('t1', whole), confirm));
        expect(delivered).toBe(`bot> ${shown}\n`);
        expect(streamed).toBe(delivered);
        expect(terminalControlsIn(streamed)).toEqual([]);
      }),
      RUNS,
    );
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
