import { z } from 'zod';
import { seconds } from '../../config/schema_parts.js';
import { EFFECT_CLASSES } from '../../turn_state/ledger_types.js';
import { TOOL_APPROVALS } from '../tool.js';

/** What joins a server's name to each of its tools' names in the catalog: `memory__read_graph`. */
export const MCP_NAME_SEPARATOR = '__';

const SERVER_NAME = /^[A-Za-z0-9_-]{1,32}$/;

const server = z
  .strictObject({
    name: z
      .string()
      .regex(SERVER_NAME, 'letters, digits, _ and - only, at most 32')
      .refine((name) => !name.includes(MCP_NAME_SEPARATOR), 'may not contain "__": it separates the server’s name from its tools’ names')
      .describe('Names the server; its tools are offered as `<name>__<tool>`.'),
    command: z.string().min(1).optional().describe('A stdio server: the program to start (e.g. `npx`); give either `command` or `url`.'),
    args: z.array(z.string()).optional().describe('A stdio server: the program’s arguments.'),
    env: z
      .record(z.string(), z.string())
      .optional()
      .describe('A stdio server: environment variables set for it, beside HOME, PATH, SHELL, TERM, USER and LOGNAME; put secrets in the environment, e.g. `${GITHUB_TOKEN}`.'),
    cwd: z.string().min(1).optional().describe('A stdio server: its working directory, relative to the configuration file’s folder; that folder when absent.'),
    url: z
      .string()
      .refine((url) => URL.canParse(url) && /^https?:\/\//i.test(url), 'expected an http(s) URL')
      .optional()
      .describe('A Streamable HTTP server: its MCP endpoint; give either `command` or `url`.'),
    headers: z.record(z.string(), z.string()).optional().describe('A Streamable HTTP server: headers sent with every request; put secrets in the environment, e.g. `Bearer ${MCP_TOKEN}`.'),
    effects: z
      .record(z.string(), z.enum(EFFECT_CLASSES))
      .default({})
      .describe('Effect classes per tool name (as the server names it), overriding what its annotations say: `read`, `idempotent` or `write`.'),
    approval: z
      .record(z.string(), z.enum(TOOL_APPROVALS))
      .default({})
      .describe(
        'Per tool name (as the server names it): `required` makes its calls wait for a person’s approval, `never` lets them run ' +
          'without; `tools.approval_defaults` for its effect class decides the rest.',
      ),
    timeout_seconds: seconds('How long the server may take to start, and one call to answer, before it is cancelled', 60),
    max_result_bytes: z
      .int()
      .positive()
      .default(65_536)
      .describe('The most of one call’s result (or error) given to the model and kept, in bytes of UTF-8; a longer one is cut with a note the model can read, and its whole size is logged.'),
  })
  .superRefine((entry, context) => {
    if ((entry.command === undefined) === (entry.url === undefined)) {
      context.addIssue({ code: 'custom', path: [], message: 'give either `command` (a stdio server) or `url` (a Streamable HTTP server)' });
      return;
    }
    const stdioOnly = ['args', 'env', 'cwd'] as const;
    if (entry.url !== undefined) {
      for (const key of stdioOnly.filter((key) => entry[key] !== undefined)) {
        context.addIssue({ code: 'custom', path: [key], message: '`args`, `env` and `cwd` belong to a stdio server (`command`)' });
      }
    }
    if (entry.command !== undefined && entry.headers !== undefined) {
      context.addIssue({ code: 'custom', path: ['headers'], message: '`headers` belong to a Streamable HTTP server (`url`)' });
    }
  });

/** `tools.mcp`: the MCP servers whose tools the model may call. */
export const mcpServersSetting = z
  .array(server)
  .default([])
  .superRefine((servers, context) => {
    const seen = new Set<string>();
    servers.forEach((entry, index) => {
      if (seen.has(entry.name)) context.addIssue({ code: 'custom', path: [index, 'name'], message: `the MCP server name ${JSON.stringify(entry.name)} is already taken` });
      seen.add(entry.name);
    });
  })
  .describe('MCP servers, over stdio (`command`) or Streamable HTTP (`url`); their tools join the catalog as `<server>__<tool>`, with an effect class from their annotations.');

/** One server of `tools.mcp`, defaults filled in. */
export type McpServerSettings = z.output<typeof mcpServersSetting>[number];
