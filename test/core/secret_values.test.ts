import { describe, expect, it } from 'vitest';
import { MIN_SECRET_LENGTH, NO_SECRETS, SecretValues } from '../../src/core/secret_values.js';
import { REDACTED } from '../../src/core/sensitive_keys.js';

describe('SecretValues', () => {
  const secrets = SecretValues.of(['opaque-key-4f9a2c71', 'tok"en\\with/quotes=+', 'short']);

  it('redacts each secret wherever it appears inside a string, every time', () => {
    expect(secrets.redact('Incorrect API key provided: opaque-key-4f9a2c71.')).toBe(`Incorrect API key provided: ${REDACTED}.`);
    expect(secrets.redact('xopaque-key-4f9a2c71x and again opaque-key-4f9a2c71')).toBe(`x${REDACTED}x and again ${REDACTED}`);
  });

  it('redacts a secret as a JSON body or a URL would echo it', () => {
    const body = JSON.stringify({ sent: 'tok"en\\with/quotes=+' });
    expect(secrets.redact(body)).toBe(`{"sent":"${REDACTED}"}`);
    expect(secrets.redact(`https://h/?k=${encodeURIComponent('tok"en\\with/quotes=+')}`)).toBe(`https://h/?k=${REDACTED}`);
  });

  it('redacts the longer of two secrets whole when one contains the other', () => {
    const nested = SecretValues.of(['abcdefgh', 'abcdefgh-12345']);
    expect(nested.redact('abcdefgh-12345 then abcdefgh')).toBe(`${REDACTED} then ${REDACTED}`);
  });

  it(`ignores values shorter than ${MIN_SECRET_LENGTH} characters, which would match ordinary words, and blank padding`, () => {
    const few = SecretValues.of(['short', 'admin', '   pass   ', '', ' padded-secret-1 ']);
    expect(few.size).toBe(1);
    expect(few.redact('short admin pass padded-secret-1')).toBe(`short admin pass ${REDACTED}`);
    expect(secrets.redact('short')).toBe('short');
  });

  it('keeps a secret one character shorter than the threshold and redacts one exactly at it (docs: values under 8 characters)', () => {
    expect(MIN_SECRET_LENGTH).toBe(8);
    const under = 'seven-7';
    const at = 'eight-88';
    expect([under.length, at.length]).toEqual([MIN_SECRET_LENGTH - 1, MIN_SECRET_LENGTH]);
    const threshold = SecretValues.of([under, at]);
    expect(threshold.size).toBe(1);
    expect(threshold.redact(`one ${under} two ${at}`)).toBe(`one ${under} two ${REDACTED}`);
  });

  it('redacts every string of a JSON-like value at any depth, keeping keys and other values, without touching the input', () => {
    const input = { text: 'key opaque-key-4f9a2c71', list: [1, true, null, ['opaque-key-4f9a2c71']], 'opaque-key-4f9a2c71': 'kept key' };
    const copy = structuredClone(input);
    expect(secrets.redactDeep(input)).toEqual({ text: `key ${REDACTED}`, list: [1, true, null, [REDACTED]], 'opaque-key-4f9a2c71': 'kept key' });
    expect(input).toEqual(copy);
  });

  describe('over text that arrives in pieces', () => {
    const pieces = (redactor: SecretValues, ...texts: string[]): string[] => {
      const stream = redactor.stream();
      return [...texts.map((text) => stream.push(text)), stream.end()];
    };

    it('redacts a secret split across pieces, holding back only what could be its start', () => {
      expect(pieces(secrets, 'the key is opaque-ke', 'y-4f9a2c71, as said')).toEqual(['the key is ', `${REDACTED}, as said`, '']);
      expect(pieces(secrets, 'o', 'p', 'aque-key-4f9a2c71', '!').join('')).toBe(`${REDACTED}!`);
    });

    it('lets go of a held end that turns out not to be a secret, with the next piece or at the end', () => {
      expect(pieces(secrets, 'an opaque-k', 'ettle')).toEqual(['an ', 'opaque-kettle', '']);
      expect(pieces(secrets, 'ends with opaque-')).toEqual(['ends with ', 'opaque-']);
    });

    it('passes every piece as it is when there are no secrets', () => {
      expect(pieces(NO_SECRETS, 'opaque-ke', 'y-4f9a2c71')).toEqual(['opaque-ke', 'y-4f9a2c71', '']);
    });
  });

  it('changes nothing when there are no secrets', () => {
    const value = { text: 'opaque-key-4f9a2c71' };
    expect(NO_SECRETS.size).toBe(0);
    expect(NO_SECRETS.redact('opaque-key-4f9a2c71')).toBe('opaque-key-4f9a2c71');
    expect(NO_SECRETS.redactDeep(value)).toBe(value);
  });
});
