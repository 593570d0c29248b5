import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger, type LoggerOptions } from '../../src/core/logger.js';
import { NO_SECRETS, SecretValues, type Redactor } from '../../src/core/secret_values.js';

function capture(options: LoggerOptions, isTTY = false, redactor: Redactor = NO_SECRETS): { logger: ReturnType<typeof createLogger>; text: () => string } {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      chunks.push(chunk.toString('utf8'));
      done();
    },
  });
  const logger = createLogger(options, { stream, isTTY }, redactor);
  return { logger, text: () => chunks.join('') };
}

describe('createLogger', () => {
  it('writes one JSON object a line with level, time and message', () => {
    const { logger, text } = capture({ level: 'info', format: 'json' });
    logger.info({ turn: 't-1' }, 'turn admitted');
    const lines = text().trimEnd().split('\n');
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0] ?? '')).toMatchObject({ level: 30, msg: 'turn admitted', turn: 't-1', time: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) as unknown });
  });

  it('rounds fractions to six significant digits, at any depth, and leaves whole numbers as they are', () => {
    const { logger, text } = capture({ level: 'info', format: 'json' });
    logger.info({ duration_ms: 1580.0017500000104, waits: { first_s: 0.1 + 0.2, ratio: 2 / 3 }, bytes: 123456789012 }, 'took a while');
    expect(JSON.parse(text())).toMatchObject({ duration_ms: 1580, waits: { first_s: 0.3, ratio: 0.666667 }, bytes: 123456789012 });
  });

  it('drops lines below the configured level', () => {
    const { logger, text } = capture({ level: 'warn', format: 'json' });
    logger.info('not shown');
    logger.debug('not shown either');
    logger.warn('shown');
    expect(
      text()
        .trimEnd()
        .split('\n')
        .map((line) => (JSON.parse(line) as { msg: string }).msg),
    ).toEqual(['shown']);
  });

  it('redacts secrets by key at any depth, in child bindings and in error properties', () => {
    const { logger, text } = capture({ level: 'info', format: 'json' });
    const error = Object.assign(new Error('request failed'), { request: { headers: { authorization: 'Bearer sk-live' } } });
    logger.child({ token: 'discord-token' }).error({ err: error, llm: { api_key: 'sk-secret', author: 'ada' } }, 'failed');
    const out = text();
    expect(out).not.toContain('sk-live');
    expect(out).not.toContain('discord-token');
    expect(out).not.toContain('sk-secret');
    expect(JSON.parse(out)).toMatchObject({ token: '[REDACTED]', llm: { api_key: '[REDACTED]', author: 'ada' }, err: { message: 'request failed' } });
  });

  it('redacts the configured secrets wherever they appear in a string: message, fields, errors and bindings, in either format', () => {
    const key = 'opaque-model-key-4f9a2c71';
    for (const format of ['json', 'pretty'] as const) {
      const { logger, text } = capture({ level: 'info', format }, false, SecretValues.of([key]));
      const error = new Error(`HTTP 500: Incorrect API key provided: ${key}`);
      logger.child({ request: `POST /v1 with ${key}` }).warn({ err: error, detail: { said: [`echo ${key}`] } }, `the model failed: ${key}`);
      expect(text()).toContain('Incorrect API key provided: [REDACTED]');
      expect(text()).not.toContain(key);
    }
  });

  it('writes human-readable lines when asked, and on a terminal under auto', () => {
    for (const [format, isTTY] of [
      ['pretty', false],
      ['auto', true],
    ] as const) {
      const { logger, text } = capture({ level: 'info', format }, isTTY);
      logger.info({ api_key: 'sk-secret' }, 'bot ready');
      expect(text()).toContain('bot ready');
      expect(text()).not.toContain('sk-secret');
      expect(() => JSON.parse(text()) as unknown).toThrow();
    }
  });

  it('writes JSON under auto when the output is not a terminal', () => {
    const { logger, text } = capture({ level: 'info', format: 'auto' }, false);
    logger.info('bot ready');
    expect(JSON.parse(text())).toMatchObject({ msg: 'bot ready' });
  });
});
