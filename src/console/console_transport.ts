import type { Readable } from 'node:stream';
import type { IdFactory } from '../core/ids.js';
import { inboundFromText } from '../conversation/notices/channel_commands.js';
import { everyChannelOf, type MessageSource, type Transport } from '../conversation/transport.js';
import { isTerminalInput, readConsoleLines, readTerminalLines, type TerminalReading } from './console_adapter.js';
import { ConsoleScreen, type ConsoleOutput } from './console_screen.js';
import { jsonLinesSink, textSink } from './console_sink.js';

/** The console's messages can be neither edited nor deleted: the original is always as admitted. */
export const consoleMessageSource: MessageSource = {
  fetchOriginal: (ref) => Promise.resolve({ authorId: ref.authorId, digest: ref.digest }),
};

export interface ConsoleTransportOptions {
  readonly mode: 'text' | 'jsonl';
  readonly input: Readable;
  readonly output: ConsoleOutput;
  /** In text mode, the terminal `output` shares with the log lines that reach it; made of `output` alone when absent. */
  readonly screen?: ConsoleScreen;
  /** Where each run's message identity comes from. */
  readonly ids: IdFactory;
  /** `chat.max_message_chars`: a longer line is held only so far as shows it too long. */
  readonly maxMessageChars: number;
}

/**
 * The terminal as a transport: each line of `input` is a message or a typed command from the
 * console user; the bot's answers go to `output` as text or as JSON lines. Its input ends with
 * the end of `input`. In text mode with both ends on a terminal, the input is read in raw mode
 * (see {@link readTerminalLines}), so that what the person types stays on its own line.
 */
export function consoleTransport(options: ConsoleTransportOptions): Transport {
  const screen = options.mode === 'text' ? (options.screen ?? new ConsoleScreen(options.output)) : undefined;
  const sink = screen === undefined ? jsonLinesSink(options.output) : textSink(screen);
  let reading = false;
  let terminal: TerminalReading | undefined;
  return {
    ...everyChannelOf('console'),
    connect() {
      sink.ready();
      return Promise.resolve({ sink, messages: consoleMessageSource });
    },
    async listen(submit) {
      reading = true;
      try {
        if (screen?.isTTY === true && isTerminalInput(options.input)) {
          terminal = readTerminalLines(options.input, options.output, screen, options.ids, options.maxMessageChars, (message) => submit(inboundFromText(message)));
          await terminal.done;
          return;
        }
        screen?.attach();
        await readConsoleLines(options.input, options.ids, options.maxMessageChars, (message) => {
          screen?.typed(message.text);
          submit(inboundFromText(message));
        });
      } finally {
        reading = false;
      }
    },
    stopInput() {
      reading = false;
      terminal?.stop();
      options.input.destroy();
    },
    connected: () => reading,
    close: () => {
      terminal?.stop();
      screen?.close();
      return Promise.resolve();
    },
  };
}
