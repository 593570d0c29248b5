import type { Readable } from 'node:stream';
import type { IdFactory } from '../core/ids.js';
import { inboundFromText } from '../conversation/command_words.js';
import type { Transport } from '../conversation/transport.js';
import { readConsoleLines } from './console_adapter.js';
import { jsonLinesSink, textSink, type ConsoleOutput } from './console_sink.js';
import { consoleMessageSource } from './console_source.js';

export interface ConsoleTransportOptions {
  readonly mode: 'text' | 'jsonl';
  readonly input: Readable;
  readonly output: ConsoleOutput;
  /** Where each run's message identity comes from. */
  readonly ids: IdFactory;
  /** `chat.max_message_chars`: a longer line is held only so far as shows it too long. */
  readonly maxMessageChars: number;
}

/**
 * The terminal as a transport: each line of `input` is a message or a typed command from the
 * console user; the bot's answers go to `output` as text or as JSON lines. Its input ends with
 * the end of `input`.
 */
export function consoleTransport(options: ConsoleTransportOptions): Transport {
  const sink = options.mode === 'jsonl' ? jsonLinesSink(options.output) : textSink(options.output);
  let reading = false;
  return {
    source: 'console',
    connect() {
      sink.ready();
      return Promise.resolve({ sink, messages: consoleMessageSource });
    },
    async listen(submit) {
      reading = true;
      try {
        await readConsoleLines(options.input, options.ids, options.maxMessageChars, (message) => submit(inboundFromText(message)));
      } finally {
        reading = false;
      }
    },
    stopInput() {
      reading = false;
      options.input.destroy();
    },
    connected: () => reading,
    close: () => Promise.resolve(),
  };
}
