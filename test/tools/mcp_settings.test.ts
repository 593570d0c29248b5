import { describe, expect, it } from 'vitest';
import { configProblems } from '../support/config_problems.js';

const mcp = (servers: string): string => `tools:\n  mcp:\n${servers}`;

describe('the tools.mcp setting', () => {
  it('takes stdio and Streamable HTTP servers, with effect overrides and a timeout', () => {
    expect(
      configProblems(
        mcp(`    - name: files
      command: npx
      args: [-y, "@modelcontextprotocol/server-filesystem", /srv/files]
      env: { LOG_LEVEL: info }
      cwd: servers
      effects: { write_file: write }
    - name: tickets-2
      url: https://mcp.example/tickets
      headers: { Authorization: Bearer x }
      timeout_seconds: 10
`),
      ),
    ).toEqual([]);
  });

  it('refuses a server with both or neither of command and url, and settings of the other kind', () => {
    expect(configProblems(mcp('    - name: both\n      command: npx\n      url: https://mcp.example\n    - name: neither\n'))).toEqual([
      'c.yml:3:7: tools.mcp[0]: give either `command` (a stdio server) or `url` (a Streamable HTTP server)',
      'c.yml:6:7: tools.mcp[1]: give either `command` (a stdio server) or `url` (a Streamable HTTP server)',
    ]);
    expect(configProblems(mcp('    - name: web\n      url: https://mcp.example\n      args: [x]\n      cwd: here\n    - name: local\n      command: npx\n      headers: { X-A: b }\n'))).toEqual([
      'c.yml:5:13: tools.mcp[0].args: `args`, `env` and `cwd` belong to a stdio server (`command`)',
      'c.yml:6:12: tools.mcp[0].cwd: `args`, `env` and `cwd` belong to a stdio server (`command`)',
      'c.yml:9:16: tools.mcp[1].headers: `headers` belong to a Streamable HTTP server (`url`)',
    ]);
  });

  it('refuses names that contain "__" or are not plain words, and an unknown effect class', () => {
    expect(configProblems(mcp('    - name: my__files\n      command: c\n    - name: "two words"\n      command: d\n      effects: { x: delete }\n'))).toEqual([
      'c.yml:3:13: tools.mcp[0].name: may not contain "__": it separates the server’s name from its tools’ names',
      'c.yml:5:13: tools.mcp[1].name: letters, digits, _ and - only, at most 32; got "two words"',
      'c.yml:7:21: tools.mcp[1].effects.x: expected one of "read", "idempotent", "write"; got "delete"',
    ]);
  });

  it('refuses two servers of one name', () => {
    expect(configProblems(mcp('    - name: memory\n      command: a\n    - name: memory\n      url: https://mcp.example\n'))).toEqual([
      'c.yml:5:13: tools.mcp[1].name: the MCP server name "memory" is already taken',
    ]);
  });

  it('keeps the names of an MCP server’s tools for it: an HTTP tool may not take one', () => {
    expect(
      configProblems(`tools:\n  http:\n    - name: memory__read_graph\n      description: d\n      url: https://x.example\n      effect: read\n  mcp:\n    - name: memory\n      command: npx\n`),
    ).toEqual(['c.yml:3:13: tools.http[0].name: names starting with "memory__" belong to the MCP server "memory"']);
  });
});
