import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { consoleTransport } from '../../src/console/console_transport.js';
import { SequentialIds } from '../support/sequential_ids.js';

function transportOn(input: PassThrough) {
  return consoleTransport({ mode: 'jsonl', input, output: new PassThrough(), ids: new SequentialIds('line'), maxMessageChars: 100 });
}

describe('the console as a connected transport', () => {
  it('is connected while it reads its input: from listen until the input ends', async () => {
    const input = new PassThrough();
    const transport = transportOn(input);
    await transport.connect();
    expect(transport.connected()).toBe(false);
    const listening = transport.listen(() => undefined);
    expect(transport.connected()).toBe(true);
    input.end('hello\n');
    await listening;
    expect(transport.connected()).toBe(false);
  });

  it('is no longer connected once its input is stopped', async () => {
    const input = new PassThrough();
    const transport = transportOn(input);
    await transport.connect();
    const listening = transport.listen(() => undefined);
    transport.stopInput();
    expect(transport.connected()).toBe(false);
    await listening;
    expect(transport.connected()).toBe(false);
  });
});
