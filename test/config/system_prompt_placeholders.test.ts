import { describe, expect, it } from 'vitest';
import { parseConfigText } from '../../src/app/config_schema.js';
import { configProblems } from '../support/config_problems.js';

const KNOWN = 'a prompt may hold {date}, {time}, {server}, {channel}, {user}';

describe('placeholders in chat.system_prompt and an override’s system_prompt', () => {
  it('refuses an unknown placeholder at start, naming the key and the placeholder, once each', () => {
    const text = `chat:
  system_prompt: "It is {date}. Ask {usr} in {chanel}, {usr} again."
overrides:
  - match: { guild_ids: ["1"] }
    system_prompt: Be brief, {user}.
  - match: { guild_ids: ["2"] }
    system_prompt: |
      You serve {guild}.
`;
    expect(configProblems(text)).toEqual([
      `c.yml:2:18: chat.system_prompt: unknown placeholder {usr}: ${KNOWN} (write {{usr} for the text {usr})`,
      `c.yml:2:18: chat.system_prompt: unknown placeholder {chanel}: ${KNOWN} (write {{chanel} for the text {chanel})`,
      `c.yml:7:20: overrides[1].system_prompt: unknown placeholder {guild}: ${KNOWN} (write {{guild} for the text {guild})`,
    ]);
  });

  it('takes the known placeholders, an escaped one, and braces that are no placeholder (JSON, capitals, spaces) as written', () => {
    const prompt = 'On {date} at {time}, {user} in {channel} of {server}. Reply as {"answer": "…", "tags": []}; {{name} is literal; {Name} and { user } too.';
    const config = parseConfigText(`chat:\n  system_prompt: '${prompt}'\noverrides:\n  - match: { guild_ids: ["1"] }\n    system_prompt: '${prompt}'\n`, 'c.yml', {});
    expect([config.chat.system_prompt, config.overrides[0]?.system_prompt]).toEqual([prompt, prompt]);
  });
});
