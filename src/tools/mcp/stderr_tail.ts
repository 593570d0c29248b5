import type { Stream } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';

/** How much of a server's latest stderr is kept for the log line that reports its failure. */
const TAIL_CHARS = 2_000;

/**
 * The last few thousand characters a stdio server wrote to stderr. Reading the stream also keeps
 * a chatty server from blocking on a full pipe.
 */
export class StderrTail {
  #text = '';
  readonly #decoder = new StringDecoder('utf8');

  /** Starts keeping the tail of `stream`; nothing when there is none. */
  follow(stream: Stream | null): void {
    stream?.on('data', (chunk: Buffer | string) => {
      this.#text = (this.#text + (typeof chunk === 'string' ? chunk : this.#decoder.write(chunk))).slice(-TAIL_CHARS);
    });
  }

  /** The kept text without surrounding blank space, from its first whole line; `undefined` when the server wrote nothing. */
  text(): string | undefined {
    const full = this.#text.length < TAIL_CHARS ? this.#text : this.#text.slice(this.#text.indexOf('\n') + 1);
    const trimmed = full.trim();
    return trimmed === '' ? undefined : trimmed;
  }
}
