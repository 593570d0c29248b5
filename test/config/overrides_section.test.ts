import { describe, expect, it } from 'vitest';
import { parseConfigText } from '../../src/app/config_schema.js';
import { configProblems } from '../support/config_problems.js';

describe('overrides', () => {
  const tools = 'tools:\n  builtin: [web_fetch]\n  http:\n    - { name: lookup, description: x, url: "https://a.example", effect: read }\n';

  it('is an empty list by default, and keeps what an entry leaves out unset', () => {
    expect(parseConfigText('', 'c.yml', {}).overrides).toEqual([]);
    const text =
      `${tools}overrides:\n  - name: support\n    match: { category_ids: ["7"], guild_ids: ["1"] }\n    tools: ` +
      `[lookup]\n  - match: { channel_ids: ["9"] }\n    system_prompt: Be brief.\n    max_iterations: 3\n`;
    expect(parseConfigText(text, 'c.yml', {}).overrides).toEqual([
      { name: 'support', match: { category_ids: ['7'], guild_ids: ['1'] }, tools: ['lookup'] },
      { match: { channel_ids: ['9'] }, system_prompt: 'Be brief.', max_iterations: 3 },
    ]);
  });

  it('refuses a tool that is not configured, naming the tools that are', () => {
    expect(configProblems(`${tools}overrides:\n  - match: { channel_ids: ["9"] }\n    tools: [lookup, recall, look_up]\n`)).toEqual([
      'c.yml:7:21: overrides[0].tools[1]: no tool is called "recall": the configured tools are web_fetch, lookup',
      'c.yml:7:29: overrides[0].tools[2]: no tool is called "look_up": the configured tools are web_fetch, lookup',
    ]);
    expect(configProblems('tools:\n  builtin: []\noverrides:\n  - match: { guild_ids: ["1"] }\n    tools: [web_fetch]\n')).toEqual([
      'c.yml:5:13: overrides[0].tools[0]: no tool is called "web_fetch": no tools are configured',
    ]);
  });

  it('takes the tools of a configured MCP server by their `<server>__` names, which it lists only once it runs', () => {
    const withMcp = 'tools:\n  builtin: []\n  mcp:\n    - { name: wiki, url: "https://wiki.example/mcp" }\n';
    expect(parseConfigText(`${withMcp}overrides:\n  - match: { channel_ids: ["9"] }\n    tools: [wiki__search]\n`, 'c.yml', {}).overrides[0]?.tools).toEqual(['wiki__search']);
    expect(configProblems(`${withMcp}overrides:\n  - match: { channel_ids: ["9"] }\n    tools: [wiki__, docs__search]\n`)).toEqual([
      'c.yml:7:13: overrides[0].tools[0]: no tool is called "wiki__": the configured tools are wiki__*',
      'c.yml:7:21: overrides[0].tools[1]: no tool is called "docs__search": the configured tools are wiki__*',
    ]);
  });

  it('refuses a match that names nothing, an empty id list, an unknown match key and a cap below 1', () => {
    const text = `overrides:
  - match: {}
  - match: { channel_ids: [] }
  - match: { channels: ["9"] }
  - match: { guild_ids: [1] }
    max_iterations: 0
`;
    expect(configProblems(text)).toEqual([
      'c.yml:2:12: overrides[0].match: name at least one of guild_ids, channel_ids, category_ids',
      'c.yml:3:27: overrides[1].match.channel_ids: list at least one id, or leave the key out',
      'c.yml:4:12: overrides[2].match: name at least one of guild_ids, channel_ids, category_ids',
      'c.yml:4:14: overrides[2].match.channels: unknown key (expected one of: guild_ids, channel_ids, category_ids)',
      'c.yml:5:26: overrides[3].match.guild_ids[0]: expected a string, got 1',
      'c.yml:6:21: overrides[3].max_iterations: Too small: expected number to be >0; got 0',
    ]);
  });
});
