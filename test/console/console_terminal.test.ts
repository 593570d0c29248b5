import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { ConsoleScreen } from '../../src/console/console_screen.js';
import { consoleTransport } from '../../src/console/console_transport.js';
import type { FinalReply, Inbound } from '../../src/conversation/transport.js';
import { Conditions } from '../support/conditions.js';
import { SequentialIds } from '../support/sequential_ids.js';
import { terminalControlsIn } from '../support/terminal_controls.js';

/** A terminal: stdout and stderr written in one order, as a person sees them, each piece tagged with its stream. */
function terminal(isTTY: boolean) {
  const seen: string[] = [];
  const stream = (tag: string) => ({ isTTY, write: (text: string) => void seen.push(`${tag}${text}`) });
  return { stdout: stream(''), stderr: stream('LOG:'), seen, text: () => seen.join('') };
}

function reply(turn: string, text: string): FinalReply {
  return { channelId: 'console', inReplyTo: 'm', turn, text, partsDelivered: 0, redelivery: false };
}

const delta = (text: string) => ({ type: 'delta', channelId: 'console', inReplyTo: 'm', turn: 't1', text }) as const;
const confirm = (): Promise<void> => Promise.resolve();
const PROMPT_ERASED = '\r\u001b[2K';

/** The console on `term`, and a way to type a line into it and wait until it was read. */
async function consoleOn(term: ReturnType<typeof terminal>) {
  const input = new PassThrough();
  const screen = new ConsoleScreen(term.stdout, term.stderr);
  const transport = consoleTransport({ mode: 'text', input, output: term.stdout, screen, ids: new SequentialIds('line'), maxMessageChars: 100 });
  const { sink } = await transport.connect();
  const read: Inbound[] = [];
  const conditions = new Conditions();
  const listening = transport.listen((inbound) => {
    read.push(inbound);
    conditions.changed();
  });
  const type = async (line: string): Promise<void> => {
    const before = read.length;
    input.write(`${line}\n`);
    await conditions.when(() => read.length > before);
  };
  return { sink, screen, type, end: () => (input.end(), listening), close: () => transport.close() };
}

describe('the text console on a terminal', () => {
  it('shows a prompt while the person may type, erases it before the bot speaks, and sets notices apart from replies in colour', async () => {
    const term = terminal(true);
    const { sink, type, end } = await consoleOn(term);
    expect(term.text()).toMatch(/^Holdfast is ready\..*\nyou> $/);
    await type('hello');
    sink.post(delta('Hel'));
    sink.post(delta('lo.'));
    await sink.deliver(reply('t1', 'Hello.'), confirm);
    sink.post({ type: 'message', channelId: 'console', inReplyTo: 'm', turn: 't2', kind: 'notice', notice: 'suspended', text: 'Saved.\nType resume.' });
    sink.post({ type: 'message', channelId: 'console', inReplyTo: 'm', turn: null, kind: 'notice', notice: 'status', text: 'Nothing saved.' });
    await end();
    // The terminal echoes the typed line after the first prompt, so the second stands on a line of its own.
    const afterReady = term.text().slice(term.text().indexOf('\n') + 1);
    expect(afterReady).toBe(
      [
        'you> ',
        `you> ${PROMPT_ERASED}bot> Hello.\n`,
        `you> ${PROMPT_ERASED}\u001b[33m-- [suspended] Saved.\n   Type resume.\u001b[39m\n`,
        `you> ${PROMPT_ERASED}\u001b[2m-- [status] Nothing saved.\u001b[22m\n`,
        'you> ',
      ].join(''),
    );
  });

  it('prints a log line between lines of the conversation, never inside a reply streaming over several lines, and no prompt after the end', async () => {
    const term = terminal(true);
    const { sink, screen, type, end, close } = await consoleOn(term);
    await type('hello');
    sink.post(delta('First line.\n'));
    screen.aside('WARN something\n');
    sink.post(delta('Second line.'));
    await sink.deliver(reply('t1', 'First line.\nSecond line.'), confirm);
    screen.aside('WARN again\n');
    await end();
    await close();
    screen.aside('INFO stopped\n');
    const conversation = term.seen.filter((piece) => !piece.startsWith('LOG:')).join('');
    expect(conversation).toContain('bot> First line.\nSecond line.\n');
    const order = term.seen.map((piece) => (piece.startsWith('LOG:') ? piece : piece.replaceAll(PROMPT_ERASED, '')));
    const secondLine = order.indexOf('Second line.');
    expect(order.indexOf('LOG:WARN something\n')).toBeGreaterThan(secondLine);
    expect(term.text().endsWith(`LOG:WARN again\nyou> ${PROMPT_ERASED}LOG:INFO stopped\n`)).toBe(true);
  });

  it('writes no prompt and no control sequences when stdout is not a terminal', async () => {
    const term = terminal(false);
    const { sink, type, end } = await consoleOn(term);
    await type('hello');
    await sink.deliver(reply('t1', 'Hello.'), confirm);
    sink.post({ type: 'message', channelId: 'console', inReplyTo: 'm', turn: 't2', kind: 'notice', notice: 'failed', text: 'No.' });
    await end();
    expect(term.text()).toMatch(/^Holdfast is ready\..*\nbot> Hello\.\n-- \[failed\] No\.\n$/);
    expect(terminalControlsIn(term.text())).toEqual([]);
  });
});
