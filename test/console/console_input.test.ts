import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { consoleTransport } from '../../src/console/console_transport.js';
import type { Inbound } from '../../src/conversation/transport.js';
import { SequentialIds } from '../support/sequential_ids.js';

/** Feeds `chunks` to a console transport's input, ends it, and returns what the transport handed on. */
async function typed(chunks: readonly string[], maxMessageChars: number): Promise<Inbound[]> {
  const input = new PassThrough();
  const transport = consoleTransport({ mode: 'text', input, output: new PassThrough(), ids: new SequentialIds('line'), maxMessageChars });
  const seen: Inbound[] = [];
  const listening = transport.listen((inbound) => void seen.push(inbound));
  for (const chunk of chunks) input.write(chunk);
  input.end();
  await listening;
  return seen;
}

const texts = (seen: readonly Inbound[]): string[] => seen.map((inbound) => inbound.origin.text);

describe('the console input', () => {
  it('hands on a 10 MB line only as far as shows it too long, and the next line whole', async () => {
    const huge = 'x'.repeat(10 * 1024 * 1024);
    const seen = await typed([huge.slice(0, 3_000_000), huge.slice(3_000_000), '\nhello\n'], 32_000);
    expect(seen.map((inbound) => inbound.kind)).toEqual(['message', 'message']);
    expect(texts(seen)[0]).toHaveLength(32_001);
    expect(texts(seen)[1]).toBe('hello');
  });

  it('ends lines at LF, CRLF or CR even across chunks, trims them, skips empty ones, and cuts only an overlong one', async () => {
    const seen = await typed(['  first  \r', '\n\n   \nsec', 'ond\rthird\r\n/st', `op\n${'a'.repeat(15)}`, `${'a'.repeat(15)}\r\nlast words  `], 20);
    expect(texts(seen)).toEqual(['first', 'second', 'third', '/stop', 'a'.repeat(21), 'last words']);
    expect(seen.map((inbound) => inbound.kind)).toEqual(['message', 'message', 'message', 'stop', 'message', 'message']);
  });

  it('counts neither leading nor trailing whitespace towards the limit, but cuts a line with text after it', async () => {
    const pad = ' '.repeat(50);
    const seen = await typed([`${pad}just ten!!${pad}\n`, `${pad}ten chars!${pad}`, `${pad}more\n`], 10);
    expect(texts(seen)).toEqual(['just ten!!', 'ten chars! ']);
  });
});
