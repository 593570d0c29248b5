import { describe, expect, it } from 'vitest';
import { isSensitiveKey, REDACTED, redactSensitiveKeys } from '../../src/core/sensitive_keys.js';

describe('sensitive keys', () => {
  it('matches secret keys in any case and spelling, exactly after normalisation', () => {
    for (const key of ['token', 'api_key', 'apiKey', 'API-KEY', 'Authorization', 'password', 'client_secret', 'Set-Cookie', 'x-api-key', 'auth']) {
      expect(isSensitiveKey(key), key).toBe(true);
    }
    for (const key of ['author', 'tokens_used', 'max_tokens', 'passwordless', 'keyboard', 'authored_by', 'secretary']) {
      expect(isSensitiveKey(key), key).toBe(false);
    }
  });

  it('redacts values under sensitive keys at any depth, in objects and lists, and keeps the rest', () => {
    const input = {
      author: 'ada',
      llm: { api_keys: ['sk-1', 'sk-2'], model: 'm', headers: { Authorization: 'Bearer abc' } },
      calls: [{ args: { password: 'hunter2', city: 'Oslo' } }],
    };
    expect(redactSensitiveKeys(input)).toEqual({
      author: 'ada',
      llm: { api_keys: REDACTED, model: 'm', headers: { Authorization: REDACTED } },
      calls: [{ args: { password: REDACTED, city: 'Oslo' } }],
    });
    expect(input.llm.headers.Authorization).toBe('Bearer abc');
  });

  it('survives cycles and keeps shared objects that are not cycles', () => {
    const shared = { token: 't', name: 'n' };
    const cyclic: Record<string, unknown> = { a: shared, b: shared };
    cyclic['self'] = cyclic;
    expect(redactSensitiveKeys(cyclic)).toEqual({
      a: { token: REDACTED, name: 'n' },
      b: { token: REDACTED, name: 'n' },
      self: '[Circular]',
    });
  });
});
