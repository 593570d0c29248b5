import { describe, expect, it } from 'vitest';
import { parseConfigText } from '../../src/app/config_schema.js';
import { configProblems } from '../support/config_problems.js';

const shards = (value: string): string => `discord:\n  shards: ${value}\n`;

describe('discord.shards', () => {
  it('is absent by default (one process is the whole bot), and takes `auto` or the ids this process runs of a count', () => {
    expect(parseConfigText('', 'c.yml', {}).discord.shards).toBeUndefined();
    expect(parseConfigText(shards('auto'), 'c.yml', {}).discord.shards).toBe('auto');
    expect(parseConfigText(shards('{ ids: [0, 1], count: 4 }'), 'c.yml', {}).discord.shards).toEqual({ ids: [0, 1], count: 4 });
  });

  it('refuses ids that are missing, repeated or not below the count, and a count below 1, naming the key', () => {
    expect(configProblems(shards('{ ids: [], count: 2 }'))).toEqual(['c.yml:2:18: discord.shards.ids: list at least one shard id']);
    expect(configProblems(shards('{ ids: [1, 1], count: 2 }'))).toEqual(['c.yml:2:22: discord.shards.ids[1]: shard 1 is listed twice']);
    expect(configProblems(shards('{ ids: [0, 4], count: 4 }'))).toEqual(['c.yml:2:22: discord.shards.ids[1]: shard 4 is not below count (4): shard ids run from 0 to 3']);
    expect(configProblems(shards('{ ids: [-1], count: 2 }'))).toEqual(['c.yml:2:19: discord.shards.ids[0]: a shard id is 0 or more; got -1']);
    expect(configProblems(shards('{ ids: [0], count: 0 }'))).toEqual(['c.yml:2:30: discord.shards.count: a bot has at least 1 shard; got 0']);
    expect(configProblems(shards('{ ids: [0], count: 1.5 }'))).toEqual(['c.yml:2:30: discord.shards.count: expected an integer, got 1.5']);
    expect(configProblems(shards('{ ids: [0] }'))).toEqual(['c.yml:2:11: discord.shards.count: expected a number, got nothing']);
  });

  it('refuses anything but `auto` or a mapping of ids and count', () => {
    expect(configProblems(shards('all'))).toEqual(['c.yml:2:11: discord.shards: expected "auto" or a mapping, got "all"']);
    expect(configProblems(shards('[0, 1]'))).toEqual(['c.yml:2:11: discord.shards: expected "auto" or a mapping, got a list']);
    expect(configProblems(shards('{ ids: [0], count: 2, total: 2 }'))).toEqual(['c.yml:2:33: discord.shards.total: unknown key (expected one of: ids, count)']);
  });
});

describe('discord.status_message', () => {
  const status = (value: string): string => `discord:\n  status_message: ${JSON.stringify(value)}\n`;

  it('is absent by default, and takes a status of up to 128 characters', () => {
    expect(parseConfigText('', 'c.yml', {}).discord.status_message).toBeUndefined();
    expect(parseConfigText(status('Ask me about dairy'), 'c.yml', {}).discord.status_message).toBe('Ask me about dairy');
    expect(parseConfigText(status('x'.repeat(128)), 'c.yml', {}).discord.status_message).toHaveLength(128);
  });

  it('refuses a longer or empty status, naming the key', () => {
    expect(configProblems(status('x'.repeat(129)))).toEqual([expect.stringMatching(/^c\.yml:2:19: discord\.status_message: Discord shows a status of at most 128 characters/)]);
    expect(configProblems(status(' '))).toEqual(['c.yml:2:19: discord.status_message: leave it out for no status; got ""']);
  });
});
