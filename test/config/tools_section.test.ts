import { describe, expect, it } from 'vitest';
import { parseConfigText } from '../../src/app/config_schema.js';
import { configProblems } from '../support/config_problems.js';

describe('the tools, permissions and chat sections', () => {
  it('offers the built-ins by default, with no HTTP tools and no permission rules, and the default budgets', () => {
    const config = parseConfigText('', 'c.yml', {});
    expect(config.tools.builtin).toEqual(['web_fetch', 'remember', 'recall']);
    expect(config.tools.http).toEqual([]);
    expect(config.permissions).toEqual({ admins: [], tools: {} });
    expect(config.chat).toMatchObject({ max_iterations: 20, max_tool_calls: 30, max_continuations: 2 });
  });

  it('fills an HTTP tool’s defaults', () => {
    const config = parseConfigText('tools:\n  http:\n    - { name: ping, description: Pings., url: "https://example.org/ping", effect: read }\n', 'c.yml', {});
    expect(config.tools.http[0]).toEqual({
      name: 'ping',
      description: 'Pings.',
      url: 'https://example.org/ping',
      effect: 'read',
      method: 'GET',
      headers: {},
      parameters: { type: 'object', properties: {} },
      timeout_seconds: 30,
      max_response_bytes: 65_536,
    });
  });

  it('refuses a web_fetch allow-list entry that is no host, address or range at start, naming its key path', () => {
    expect(configProblems('tools:\n  web_fetch:\n    allow_private: [10.0.0.0/8, "10.0.0.0/99", "http://x/"]\n')).toEqual([
      'c.yml:3:33: tools.web_fetch.allow_private[1]: not a host name, an IP address or a CIDR range (e.g. intranet.example, 10.1.2.3, 10.0.0.0/8, fd00::/8)',
      'c.yml:3:48: tools.web_fetch.allow_private[2]: not a host name, an IP address or a CIDR range (e.g. intranet.example, 10.1.2.3, 10.0.0.0/8, fd00::/8)',
    ]);
  });

  it('refuses a tool name taken twice, an idempotent tool without its header, a bad URL and unquoted Discord ids', () => {
    const text = `tools:
  http:
    - { name: web_fetch, description: x, url: "https://a.example/{id}", effect: read }
    - { name: charge, description: y, url: "ftp://b.example", effect: idempotent }
    - { name: charge, description: z, url: "https://c.example", effect: write }
permissions:
  admins: [123456789012345678]
`;
    expect(configProblems(text)).toEqual([
      'c.yml:3:15: tools.http[0].name: the tool name "web_fetch" is already taken',
      'c.yml:4:7: tools.http[1].idempotency_header: required for an idempotent tool: the header that carries the idempotency key',
      'c.yml:4:44: tools.http[1].url: expected an http(s) URL',
      'c.yml:5:15: tools.http[2].name: the tool name "charge" is already taken',
      'c.yml:7:12: permissions.admins[0]: expected a string, got 123456789012345680',
    ]);
  });

  it('refuses a tool name the model could not call', () => {
    expect(configProblems('tools:\n  http:\n    - { name: "send mail", description: x, url: "https://a.example", effect: write }\n')).toEqual([
      'c.yml:3:15: tools.http[0].name: letters, digits, _ and - only, at most 64; got "send mail"',
    ]);
  });
});
