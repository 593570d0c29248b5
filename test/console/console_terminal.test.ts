import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { ConsoleScreen, type ConsoleOutput } from '../../src/console/console_screen.js';
import { consoleTransport } from '../../src/console/console_transport.js';
import type { FinalReply, Inbound } from '../../src/conversation/transport.js';
import { Conditions } from '../support/conditions.js';
import { SequentialIds } from '../support/sequential_ids.js';
import { fakeTerminal } from '../support/fake_terminal.js';
import { terminalControlsIn } from '../support/terminal_controls.js';

/** A terminal off which stdout and stderr are written in one order, each piece tagged with its stream. */
function piped() {
  const seen: string[] = [];
  const stream = (tag: string) => ({ isTTY: false, write: (text: string) => void seen.push(`${tag}${text}`) });
  return { stdout: stream(''), stderr: stream('LOG:'), text: () => seen.join('') };
}

function reply(turn: string, text: string): FinalReply {
  return { channelId: 'console', inReplyTo: 'm', turn, text, partsDelivered: 0, redelivery: false };
}

const delta = (text: string) => ({ type: 'delta', channelId: 'console', inReplyTo: 'm', turn: 't1', text }) as const;
const confirm = (): Promise<void> => Promise.resolve();
const READY = 'Holdfast is ready. Type a message; `/help` lists the commands.';

/** The console on a terminal (its stdout and stderr both on it) or on pipes, and a way to type into it and wait until a line was read. */
async function consoleOn(term: { readonly input: PassThrough; readonly stdout: ConsoleOutput; readonly stderr: ConsoleOutput }) {
  const screen = new ConsoleScreen(term.stdout, term.stderr);
  const transport = consoleTransport({ mode: 'text', input: term.input, output: term.stdout, screen, ids: new SequentialIds('line'), maxMessageChars: 100 });
  const { sink } = await transport.connect();
  const read: Inbound[] = [];
  const conditions = new Conditions();
  const listening = transport.listen((inbound) => {
    read.push(inbound);
    conditions.changed();
  });
  /** Types `keys` (Enter is `\r`) and waits until `lines` more lines were read. */
  const type = async (keys: string, lines = 1): Promise<void> => {
    const before = read.length;
    term.input.write(keys);
    await conditions.when(() => read.length >= before + lines);
  };
  const texts = () => read.map((inbound) => inbound.origin.text);
  return { sink, screen, type, texts, end: () => (term.input.end(), listening), close: () => transport.close() };
}

/** A fake terminal `columns` wide, as {@link consoleOn} takes it. */
function onTerminal(columns = 80) {
  const term = fakeTerminal(columns);
  return { ...term, stdout: term.output, stderr: term.output };
}

describe('the text console on a terminal', () => {
  it('shows a prompt while the person may type, erases it before the bot speaks, and sets notices apart from replies in colour', async () => {
    const term = onTerminal();
    const { sink, type, end } = await consoleOn(term);
    expect(term.screen.lines()).toEqual([READY, 'you>']);
    await type('hello\r');
    sink.post(delta('Hel'));
    sink.post(delta('lo.'));
    await sink.deliver(reply('t1', 'Hello.'), confirm);
    sink.post({ type: 'message', channelId: 'console', inReplyTo: 'm', turn: 't2', kind: 'notice', notice: 'suspended', text: 'Saved.\nType resume.' });
    sink.post({ type: 'message', channelId: 'console', inReplyTo: 'm', turn: null, kind: 'notice', notice: 'status', text: 'Nothing saved.' });
    expect(term.screen.lines()).toEqual([READY, 'you> hello', 'bot> Hello.', '-- [suspended] Saved.', '   Type resume.', '-- [status] Nothing saved.', 'you>']);
    expect(term.written()).toContain('\u001b[33m-- [suspended] Saved.\n   Type resume.\u001b[39m\n');
    expect(term.written()).toContain('\u001b[2m-- [status] Nothing saved.\u001b[22m\n');
    term.keys('\u0004');
    await end();
  });

  it('keeps what the person types on the input line below a reply streaming, and sends exactly that on Enter', async () => {
    const term = onTerminal(40);
    const { sink, type, texts, end } = await consoleOn(term);
    await type('hello\r');
    sink.post(delta('The first part'));
    term.keys('draft');
    await term.shows((lines) => lines.at(-1) === 'you> draft');
    sink.post(delta(' of a reply longer than the terminal is wide.\nA second'));
    term.keys(' mor');
    await term.shows((lines) => lines.at(-1) === 'you> draft mor');
    sink.post(delta(' line.'));
    term.keys('e');
    await term.shows((lines) => lines.at(-1) === 'you> draft more');
    await sink.deliver(reply('t1', 'The first part of a reply longer than the terminal is wide.\nA second line.'), confirm);
    expect(term.screen.lines().slice(2)).toEqual(['you> hello', 'bot> The first part of a reply longer th', 'an the terminal is wide.', 'A second line.', 'you> draft more']);
    await type('\r');
    expect(texts()).toEqual(['hello', 'draft more']);
    expect(term.screen.lines().slice(-2)).toEqual(['you> draft more', 'you>']);
    term.keys('\u0004');
    await end();
  });

  it('shows a line sent while a reply streams below that reply, once it ends', async () => {
    const term = onTerminal();
    const { sink, type, texts, end } = await consoleOn(term);
    await type('hello\r');
    sink.post(delta('Half a'));
    await type('next question\r');
    sink.post(delta(' reply.'));
    await sink.deliver(reply('t1', 'Half a reply.'), confirm);
    expect(texts()).toEqual(['hello', 'next question']);
    expect(term.screen.lines()).toEqual([READY, 'you> hello', 'bot> Half a reply.', 'you> next question', 'you>']);
    term.keys('\u0004');
    await end();
  });

  it('prints a log line between lines of the conversation, never inside a reply streaming over several lines, and no prompt after the end', async () => {
    const term = onTerminal();
    const { sink, screen, type, end, close } = await consoleOn(term);
    await type('hello\r');
    sink.post(delta('First line.\n'));
    screen.aside('WARN something\n');
    sink.post(delta('Second line.'));
    await sink.deliver(reply('t1', 'First line.\nSecond line.'), confirm);
    screen.aside('WARN again\n');
    term.keys('\u0004');
    await end();
    await close();
    screen.aside('INFO stopped\n');
    expect(term.screen.lines()).toEqual([READY, 'you> hello', 'bot> First line.', 'Second line.', 'WARN something', 'WARN again', 'INFO stopped']);
  });

  it('writes no prompt and no control sequences when stdout is not a terminal', async () => {
    const term = { input: new PassThrough(), ...piped() };
    const { sink, type, end } = await consoleOn(term);
    await type('hello\n');
    await sink.deliver(reply('t1', 'Hello.'), confirm);
    sink.post({ type: 'message', channelId: 'console', inReplyTo: 'm', turn: 't2', kind: 'notice', notice: 'failed', text: 'No.' });
    await end();
    expect(term.text()).toMatch(/^Holdfast is ready\..*\nbot> Hello\.\n-- \[failed\] No\.\n$/);
    expect(terminalControlsIn(term.text())).toEqual([]);
  });
});
