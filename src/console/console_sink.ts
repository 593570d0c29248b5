import type { BotEvent, ReplySink } from '../conversation/transport.js';
import { assertNever } from '../core/assert_never.js';
import type { ConsoleOutput, ConsoleScreen } from './console_screen.js';
import { noticeText } from './notice_text.js';
import { approveHowText } from '../conversation/notices/approval_texts.js';
import { TerminalText, terminalSafe } from './terminal_text.js';

/**
 * The JSON-lines interface (a public, stable contract documented in docs/guide.md): one JSON object
 * a line on stdout — `ready`, `message` (reply or notice; a reply names its `model` when the bot
 * has fallback models), `turn` (status changes) and `approval` (a call waits for `/approve` or `/deny`). Streamed
 * deltas, waits for the model and updates of an earlier notice are not part of it.
 */
export function jsonLinesSink(output: ConsoleOutput): ReplySink & { ready(): void } {
  const line = (value: object): void => void output.write(`${JSON.stringify(value)}\n`);
  return {
    ready: () => line({ type: 'ready' }),
    post(event: BotEvent) {
      switch (event.type) {
        case 'message':
          return line({ type: 'message', turn: event.turn, kind: 'notice', notice: event.notice, text: event.text });
        case 'turn':
          return line({ type: 'turn', turn: event.turn, status: event.status });
        case 'delta':
        case 'notice_update':
        case 'waiting':
        case 'working':
        case 'approval_settled':
          return undefined;
        default:
          return assertNever(event);
      }
    },
    askApproval(ask) {
      line({ type: 'approval', turn: ask.turn, call: ask.call, text: ask.text });
      return Promise.resolve(undefined);
    },
    deliver(reply) {
      line({ type: 'message', turn: reply.turn, kind: 'reply', text: reply.text, ...(reply.model === undefined ? {} : { model: reply.model }) });
      return Promise.resolve(1);
    },
  };
}

/**
 * Human-readable output on `output`: replies stream as they are written (`bot> …`), notices are
 * marked apart from them (see {@link noticeText}), and on a terminal the prompt shows while the
 * person may type; a turn that waits for the model shows one status line for each attempt it waits
 * for, and one whose tools run for a while says which. What the bot says is printed without control characters or escape sequences
 * (see {@link TerminalText}), on a terminal or not: a log piped to a file is read on one later.
 */
export function textSink(output: ConsoleScreen): ReplySink & { ready(): void } {
  let streaming: string | undefined;
  /** The last status line shown (a wait's turn and attempt, or what the turn's tools do), so that it is shown once however often it is renewed (until the turn runs again). */
  let waitShown: string | undefined;
  const stream = new TerminalText();
  const endStream = (): void => {
    if (streaming !== undefined) output.write('\n');
    streaming = undefined;
    stream.reset();
  };
  /** A status line (`… waiting for the model…`, `… running open_ticket…`), once for each `key` until the turn runs again. */
  const showStatus = (key: string, text: string): void => {
    if (waitShown === key) return;
    waitShown = key;
    endStream();
    output.write(`… ${terminalSafe(text)}\n`);
  };
  return {
    ready: () => void output.write('Holdfast is ready. Type a message; `/help` lists the commands.\n'),
    post(event: BotEvent) {
      switch (event.type) {
        case 'delta':
          if (streaming !== event.turn) {
            endStream();
            output.stream('bot> ');
            streaming = event.turn;
          }
          output.stream(stream.push(event.text));
          return;
        case 'waiting':
          return showStatus(`${event.turn}:${event.attempt}`, event.text);
        case 'working':
          return showStatus(`${event.turn}:${event.text}`, event.text);
        case 'message':
          endStream();
          output.write(noticeText(event.notice, terminalSafe(event.text), output.isTTY));
          return;
        case 'turn':
        case 'notice_update':
          waitShown = undefined;
          return;
        case 'approval_settled':
          return;
        default:
          return assertNever(event);
      }
    },
    askApproval(ask) {
      endStream();
      output.write(noticeText('status', terminalSafe(`${ask.text}\n${approveHowText(ask.call)}`), output.isTTY));
      return Promise.resolve(undefined);
    },
    deliver(reply) {
      // A reply that streamed is already on screen; only its line ends.
      const streamed = streaming === reply.turn;
      endStream();
      if (!streamed) output.write(`bot> ${terminalSafe(reply.text)}\n`);
      return Promise.resolve(1);
    },
  };
}
