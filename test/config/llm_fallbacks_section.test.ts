import { describe, expect, it } from 'vitest';
import { parseConfigText } from '../../src/app/config_schema.js';
import { configProblems } from '../support/config_problems.js';

const PRIMARY = 'llm:\n  provider: anthropic\n  api_key: ${ANTHROPIC_API_KEY}\n  model: claude-sonnet-4-5\n';

describe('llm.fallbacks', () => {
  it('reads each fallback with the keys and defaults of llm, in order', () => {
    const text =
      `${PRIMARY}  fallbacks:\n    - provider: openai\n      base_url: http://localhost:11434/v1\n      model: ` +
      `llama3.1\n      vision: true\n    - { provider: openai-responses, api_key: k, model: gpt-4.1-mini, ` +
      `max_tokens: 512 }\n`;
    const { llm } = parseConfigText(text, 'c.yml', { ANTHROPIC_API_KEY: 'a' });
    expect(llm.fallbacks).toEqual([
      {
        provider: 'openai',
        base_url: 'http://localhost:11434/v1',
        model: 'llama3.1',
        vision: true,
        max_tokens: 4096,
        request_timeout_seconds: 60,
        stream_stall_timeout_seconds: 60,
        max_response_seconds: 600,
        headers: {},
      },
      {
        provider: 'openai-responses',
        api_key: 'k',
        model: 'gpt-4.1-mini',
        max_tokens: 512,
        vision: false,
        request_timeout_seconds: 60,
        stream_stall_timeout_seconds: 60,
        max_response_seconds: 600,
        headers: {},
      },
    ]);
    expect(llm.fallback_note).toBe('-# answered by <model>');
  });

  it('refuses a fallback without a model, with an unknown key or with two key settings, naming the entry', () => {
    const text = `${PRIMARY}  fallbacks:\n    - { provider: openai, model: a }\n    - { provider: openai }\n    - { model: b, api_key: x, api_keys: [y] }\n    - { model: c, fallbacks: [] }\n`;
    expect(configProblems(text, { ANTHROPIC_API_KEY: 'a' })).toEqual([
      'c.yml:7:7: llm.fallbacks[1].model: expected a string, got nothing',
      'c.yml:8:41: llm.fallbacks[2].api_keys: give api_key or api_keys, not both',
      'c.yml:9:19: llm.fallbacks[3].fallbacks: unknown key (expected one of: provider, base_url, api_key, api_keys, ' +
        'model, max_tokens, temperature, request_timeout_seconds, stream_stall_timeout_seconds, max_response_seconds, ' +
        'headers, vision)',
    ]);
  });

  it('refuses fallbacks without a primary model, and a model name given twice', () => {
    expect(configProblems('llm:\n  fallbacks:\n    - { model: a }\n')).toEqual(['c.yml:3:5: llm.fallbacks: fallbacks follow a primary model: set llm.model too']);
    expect(configProblems(`${PRIMARY}  fallbacks:\n    - { model: llama3.1 }\n    - { model: claude-sonnet-4-5 }\n    - { model: llama3.1 }\n`, { ANTHROPIC_API_KEY: 'a' })).toEqual([
      'c.yml:7:16: llm.fallbacks[1].model: "claude-sonnet-4-5" is already the name of llm.model: each model needs a name of its own',
      'c.yml:8:16: llm.fallbacks[2].model: "llama3.1" is already the name of llm.fallbacks[0].model: each model needs a name of its own',
    ]);
  });
});

describe('overrides[].models', () => {
  const models = `${PRIMARY}  fallbacks:\n    - { provider: openai, base_url: "http://localhost:11434/v1", model: llama3.1 }\n`;

  it('names the models a place may use, in order', () => {
    const text = `${models}overrides:\n  - match: { channel_ids: ["9"] }\n    models: [llama3.1, claude-sonnet-4-5]\n`;
    expect(parseConfigText(text, 'c.yml', { ANTHROPIC_API_KEY: 'a' }).overrides[0]?.models).toEqual(['llama3.1', 'claude-sonnet-4-5']);
  });

  it('refuses a model that is not configured, naming the models that are, and an empty list', () => {
    const text = `${models}overrides:\n  - match: { channel_ids: ["9"] }\n    models: [llama3.1, gpt-5]\n  - match: { channel_ids: ["8"] }\n    models: []\n`;
    expect(configProblems(text, { ANTHROPIC_API_KEY: 'a' })).toEqual([
      'c.yml:9:24: overrides[0].models[1]: no model is called "gpt-5": the configured models are claude-sonnet-4-5, llama3.1',
      'c.yml:11:13: overrides[1].models: list at least one model, or leave the key out',
    ]);
    expect(configProblems('overrides:\n  - match: { channel_ids: ["9"] }\n    models: [gpt-5]\n')).toEqual(['c.yml:3:14: overrides[0].models[0]: no model is called "gpt-5": no model is configured']);
  });
});
