import { z } from 'zod';
import { seconds } from '../config/schema_parts.js';
import { EFFECT_CLASSES } from '../turn_state/ledger_types.js';
import { TOOL_APPROVALS } from './tool.js';
import { MCP_NAME_SEPARATOR, mcpServersSetting } from './mcp/mcp_settings.js';
import { createUrlGuard } from './url_guard.js';

/** Who may answer a request for approval (`tools.approvers`, DESIGN §9.2). */
export const APPROVERS = ['requester', 'admins', 'requester_or_admins'] as const;
export type Approvers = (typeof APPROVERS)[number];

/** The tools Holdfast brings; `tools.builtin` picks which are offered. */
export const BUILTIN_TOOLS = ['web_fetch', 'remember', 'recall'] as const;

const TOOL_NAME = /^[A-Za-z0-9_-]{1,64}$/;

/** Whether `entry` is one the web_fetch guard can be built from: a bad one is refused at start, never at the first message. */
function isAllowEntry(entry: string): boolean {
  try {
    createUrlGuard([entry]);
    return true;
  } catch {
    return false;
  }
}

const approvalSetting = z.enum(TOOL_APPROVALS);

/** Whether the calls of each effect class wait for a person's approval, where a tool says nothing of its own (DESIGN §9.2). */
export const approvalDefaults = z
  .strictObject({
    write: approvalSetting.default('never').describe('Calls of `write` tools.'),
    idempotent: approvalSetting.default('never').describe('Calls of `idempotent` tools.'),
    read: approvalSetting.default('never').describe('Calls of `read` tools.'),
  })
  .describe('Whether calls wait for a person’s approval before they run, per effect class: `required` or `never` (the default for all, so nothing changes until asked).');

const httpTool = z
  .strictObject({
    name: z.string().regex(TOOL_NAME, 'letters, digits, _ and - only, at most 64').describe('The name the model calls the tool by.'),
    description: z.string().min(1).describe('What the tool does, for the model.'),
    method: z.enum(['GET', 'POST', 'PUT', 'PATCH', 'DELETE']).default('GET').describe('GET and DELETE send the input as query parameters, the others as a JSON body.'),
    url: z
      .string()
      .refine((url) => URL.canParse(url.replace(/\{[^{}]*\}/g, 'x')) && /^https?:\/\//i.test(url), 'expected an http(s) URL')
      .describe('The endpoint; `{param}` is replaced by that input field, URL-encoded, and not sent again. A field in the path must not be empty, `.` or `..`: such a call is refused.'),
    headers: z.record(z.string(), z.string()).default({}).describe('Headers sent with every call; put secrets in the environment, e.g. `Bearer ${WEATHER_TOKEN}`.'),
    parameters: z.record(z.string(), z.unknown()).default({ type: 'object', properties: {} }).describe('JSON Schema of the input, sent to the model unchanged and checked before the call.'),
    effect: z
      .enum(EFFECT_CLASSES)
      .describe('`read`: changes nothing; `idempotent`: the endpoint honours an idempotency key; `write`: anything else. An uncertain `write` is never retried automatically.'),
    idempotency_header: z.string().min(1).optional().describe('For `idempotent` tools: the header that carries the call’s stable idempotency key.'),
    timeout_seconds: seconds('How long one call may take', 30),
    max_response_bytes: z.int().positive().default(65_536).describe('The most of a response body given to the model; longer bodies are cut with a marker.'),
    approval: approvalSetting
      .optional()
      .describe('Whether each call waits for a person’s approval before it runs: `required` or `never`; `tools.approval_defaults` for its effect class decides when absent.'),
  })
  .refine((tool) => tool.effect !== 'idempotent' || tool.idempotency_header !== undefined, {
    path: ['idempotency_header'],
    message: 'required for an idempotent tool: the header that carries the idempotency key',
  });

/** The `tools` section. */
export const toolsSection = z
  .strictObject({
    builtin: z
      .array(z.enum(BUILTIN_TOOLS))
      .default([...BUILTIN_TOOLS])
      .describe('The built-in tools to offer.'),
    web_fetch: z
      .strictObject({
        allow_private: z
          .array(z.string().min(1).refine(isAllowEntry, 'not a host name, an IP address or a CIDR range (e.g. intranet.example, 10.1.2.3, 10.0.0.0/8, fd00::/8)'))
          .default([])
          .describe('Hosts or address ranges (CIDR) that web_fetch may reach even though they are private, loopback or link-local.'),
        timeout_seconds: seconds('How long one fetch may take', 20),
        max_bytes: z.int().positive().default(1_000_000).describe('The most bytes downloaded per fetch.'),
        max_chars: z.int().positive().default(20_000).describe('The most characters of text given to the model.'),
        max_redirects: z.int().nonnegative().default(5).describe('How many redirects are followed, each checked like the first URL.'),
      })
      .prefault({})
      .describe('The `web_fetch` tool: public web pages as text.'),
    memory: z
      .strictObject({
        recall_limit: z.int().positive().default(20).describe('The most notes one recall returns.'),
      })
      .prefault({})
      .describe('The `remember` and `recall` tools: notes per user or per channel, kept in the store file (`turn_state.db_path`).'),
    http: z.array(httpTool).default([]).describe('Tools defined here, each one HTTP endpoint.'),
    mcp: mcpServersSetting,
    approval_defaults: approvalDefaults.prefault({}),
    approvers: z
      .enum(APPROVERS)
      .default('requester_or_admins')
      .describe('Who may approve or deny a call: `requester` (who asked for the turn), `admins` (`permissions.admins`) or `requester_or_admins`. Only admins may "always allow" a tool in a channel.'),
    approval_timeout_minutes: z.int().positive().default(60).describe('How long a request for approval waits; unanswered, the call is denied by timeout and the model is told.'),
  })
  .superRefine((tools, context) => {
    const taken = new Set<string>(tools.builtin);
    tools.http.forEach((tool, index) => {
      if (taken.has(tool.name)) context.addIssue({ code: 'custom', path: ['http', index, 'name'], message: `the tool name ${JSON.stringify(tool.name)} is already taken` });
      const owner = tools.mcp.find((server) => tool.name.startsWith(server.name + MCP_NAME_SEPARATOR));
      if (owner !== undefined)
        context.addIssue({
          code: 'custom',
          path: ['http', index, 'name'],
          message: `names starting with ${JSON.stringify(owner.name + MCP_NAME_SEPARATOR)} belong to the MCP server ${JSON.stringify(owner.name)}`,
        });
      taken.add(tool.name);
    });
  })
  .describe('The tools the model may call.');

/** The validated section, defaults filled in. */
export type ToolsSettings = z.output<typeof toolsSection>;

/**
 * The names of the tools the `tools` section configures, known before any tool is built; an MCP
 * server's tools, listed only once it runs, are named by the pattern `<server>__*`.
 */
export function configuredToolNames(tools: ToolsSettings): string[] {
  return [...tools.builtin, ...tools.http.map((tool) => tool.name), ...tools.mcp.map((server) => `${server.name}__*`)];
}

/** Whether `name` is one of `configured` (a name from {@link configuredToolNames}): equal to it, or of an MCP server's pattern. */
export function isConfiguredToolName(name: string, configured: readonly string[]): boolean {
  return configured.some((known) => (known.endsWith('__*') ? name.startsWith(known.slice(0, -1)) && name.length > known.length - 1 : known === name));
}
