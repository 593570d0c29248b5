import { describe, expect, it } from 'vitest';
import { parseConfigText } from '../../src/app/config_schema.js';
import { configProblems } from '../support/config_problems.js';

describe('the llm section', () => {
  it('reads a full provider setup with keys from the environment and fractional seconds', () => {
    const text = [
      'llm:',
      '  provider: anthropic',
      '  base_url: http://localhost:8080/v1',
      '  api_keys: ["${KEY_A}", "${KEY_B}"]',
      '  model: claude-test',
      '  max_tokens: 1024',
      '  temperature: 0.2',
      '  request_timeout_seconds: 2.5',
      '  stream_stall_timeout_seconds: 0.5',
      '  max_response_seconds: 90',
      '  headers: { HTTP-Referer: https://example.org }',
      '',
    ].join('\n');
    expect(parseConfigText(text, 'c.yml', { KEY_A: 'ka', KEY_B: 'kb' }).llm).toEqual({
      provider: 'anthropic',
      base_url: 'http://localhost:8080/v1',
      api_keys: ['ka', 'kb'],
      model: 'claude-test',
      max_tokens: 1024,
      temperature: 0.2,
      request_timeout_seconds: 2.5,
      stream_stall_timeout_seconds: 0.5,
      max_response_seconds: 90,
      headers: { 'HTTP-Referer': 'https://example.org' },
      vision: false,
      fallbacks: [],
      fallback_note: '-# answered by <model>',
      prices: {},
    });
  });

  it('refuses api_key together with api_keys, naming both', () => {
    expect(configProblems('llm:\n  api_key: a\n  api_keys: [b]\n')).toEqual(['c.yml:3:13: llm.api_keys: give api_key or api_keys, not both']);
  });

  it('refuses an unknown provider, a non-HTTP base_url, fractional max_tokens and non-positive timeouts', () => {
    const text = 'llm:\n  provider: gemini\n  base_url: ftp://host\n  max_tokens: 1.5\n  request_timeout_seconds: 0\n';
    expect(configProblems(text)).toEqual([
      'c.yml:2:13: llm.provider: expected one of "openai", "openai-responses", "anthropic"; got "gemini"',
      'c.yml:3:13: llm.base_url: Invalid URL; got "ftp://host"',
      'c.yml:4:15: llm.max_tokens: expected an integer, got 1.5',
      'c.yml:5:28: llm.request_timeout_seconds: Too small: expected number to be >0; got 0',
    ]);
  });
});
