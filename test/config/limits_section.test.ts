import { describe, expect, it } from 'vitest';
import { parseConfigText } from '../../src/app/config_schema.js';
import { limitsFor } from '../../src/conversation/turns/usage_admission.js';
import { configProblems } from '../support/config_problems.js';

const MESSAGE = { authorId: 'ada', channelId: 'general', place: { guildId: 'g1' } };

describe('the limits section and llm.prices', () => {
  it('limits nothing by default, and exempts admins', () => {
    const config = parseConfigText('', 'c.yml', {});
    expect(config.limits).toEqual({ admins_exempt: true });
    expect(config.llm.prices).toEqual({});
    expect(config.turn_state.usage_retention_days).toBe(400);
    expect(limitsFor(config, MESSAGE)).toEqual({ window: [], turn: { maxTokens: undefined, maxCost: undefined } });
  });

  it('holds a message to every scope’s limits, an override replacing a scope it sets, and an admin to none unless admins_exempt is false', () => {
    const yaml = (exempt: boolean) => `permissions:
  admins: ['root']
limits:
  per_user: { turns_per_hour: 20, tokens_per_day: 1000 }
  per_server: { tokens_per_day: 5000 }
  per_turn: { max_tokens: 300, max_cost: 0.5 }
  admins_exempt: ${exempt}
overrides:
  - match: { channel_ids: ['playground'] }
    limits: { per_user: { turns_per_hour: 2 } }
`;
    const config = parseConfigText(yaml(true), 'c.yml', {});
    expect(limitsFor(config, MESSAGE)).toEqual({
      window: [
        { scope: 'user', kind: 'turns_per_hour', max: 20 },
        { scope: 'user', kind: 'tokens_per_day', max: 1000 },
        { scope: 'server', kind: 'tokens_per_day', max: 5000 },
      ],
      turn: { maxTokens: 300, maxCost: 0.5 },
    });
    expect(limitsFor(config, { ...MESSAGE, channelId: 'playground' }).window).toEqual([
      { scope: 'user', kind: 'turns_per_hour', max: 2 },
      { scope: 'server', kind: 'tokens_per_day', max: 5000 },
    ]);
    expect(limitsFor(config, { ...MESSAGE, authorId: 'root' })).toEqual({ window: [], turn: {} });
    expect(limitsFor(parseConfigText(yaml(false), 'c.yml', {}), { ...MESSAGE, authorId: 'root' }).window).toHaveLength(3);
  });

  it('refuses a limit that is not a positive whole number, an unknown key, and a price for a model that is not configured, naming each', () => {
    expect(configProblems('limits:\n  per_user: { turns_per_hour: 0 }\n')).toEqual(['c.yml:2:31: limits.per_user.turns_per_hour: Too small: expected number to be >0; got 0']);
    expect(configProblems('limits:\n  per_user: { turns_per_day: 5 }\n')).toEqual(['c.yml:2:15: limits.per_user.turns_per_day: unknown key (expected one of: turns_per_hour, tokens_per_day)']);
    expect(configProblems('llm:\n  model: a\n  prices:\n    b: { input: 1, output: 2 }\n')).toEqual([
      'c.yml:4:8: llm.prices.b: no model is called "b": prices are given by the names of llm.model and the fallbacks',
    ]);
    expect(configProblems('llm:\n  model: a\n  prices:\n    a: { input: 1 }\n')).toEqual(['c.yml:4:8: llm.prices.a.output: expected a number, got nothing']);
  });
});
