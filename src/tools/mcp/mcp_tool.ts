import { assertNever } from '../../core/assert_never.js';
import type { JsonObject } from '../../llm/protocol.js';
import type { EffectClass } from '../../turn_state/ledger_types.js';
import type { ToolApproval, Tool, ToolContext, ToolOutcome } from '../tool.js';
import { outcomeOfRejection, outcomeOfUnreadableAnswer, type FailedCall } from './mcp_call_failure.js';
import type { ListedTool } from './mcp_connection.js';
import { effectOf } from './mcp_effect.js';
import { readCallAnswer } from './mcp_result.js';
import { MCP_NAME_SEPARATOR } from './mcp_settings.js';
import { cutToBytes } from '../response_prefix.js';

/** The key of `_meta` that carries an idempotent call's stable key to the server. */
export const IDEMPOTENCY_META_KEY = 'holdfast/idempotency_key';

/** The names a model may call a tool by (the strictest provider's rule). */
const MODEL_TOOL_NAME = /^[A-Za-z0-9_-]{1,64}$/;

/** How a call reached the server, or why it did not. */
export type CallAttempt =
  | { readonly kind: 'not_running'; readonly why: string }
  /** The call's signal aborted (its timeout or /stop) before it was sent. */
  | { readonly kind: 'not_sent' }
  | { readonly kind: 'answered'; readonly answer: unknown }
  | { readonly kind: 'rejected'; readonly error: unknown };

/** The server side of an MCP tool: one configured server that may be running or not. */
export interface ToolServer {
  readonly name: string;
  /**
   * Sends `tools/call` for the server's tool named `tool`, with `meta` and the call's W3C
   * `traceparent`, if any, in its `_meta`; `signal` and `timeoutMs` cancel it.
   */
  call(tool: string, input: JsonObject, meta: Record<string, string> | undefined, traceparent: string | undefined, signal: AbortSignal, timeoutMs: number): Promise<CallAttempt>;
}

/** What the server's settings say about its tools. */
export interface ToolPolicy {
  readonly effects: Readonly<Record<string, EffectClass>>;
  /** Whether each tool's calls wait for approval, where the settings name it (`tools.mcp[].approval`). */
  readonly approval?: Readonly<Record<string, ToolApproval>>;
  readonly timeoutSeconds: number;
  /** The most bytes of a result or error the model is given (`max_result_bytes`). */
  readonly maxResultBytes: number;
}

/**
 * The catalog tool for one tool a server listed, named `<server>__<tool>`, with the server's
 * description and input schema (without `$schema`, which the model does not need and some
 * validators refuse) and the effect class its annotations give (`effectOf`). `undefined` when
 * the joined name is not one a model may call.
 */
export function createMcpTool(server: ToolServer, listed: ListedTool, policy: ToolPolicy): Tool | undefined {
  const name = `${server.name}${MCP_NAME_SEPARATOR}${listed.name}`;
  if (!MODEL_TOOL_NAME.test(name)) return undefined;
  const { $schema: _dialect, ...inputSchema } = listed.inputSchema;
  const effect = effectOf(listed.annotations, policy.effects[listed.name]);
  const call: FailedCall = { tool: name, server: server.name, effect, timeoutSeconds: policy.timeoutSeconds };
  return {
    name,
    description: listed.description ?? listed.title ?? listed.annotations?.title ?? `The ${listed.name} tool of MCP server ${server.name}.`,
    // The listing was parsed from JSON, so every value in it is JSON.
    inputSchema: inputSchema as JsonObject,
    effect,
    ...(policy.approval?.[listed.name] === undefined ? {} : { approval: policy.approval[listed.name] }),
    timeoutMs: policy.timeoutSeconds * 1000,
    cancellable: true,
    execute: async (input, context) => {
      const meta = effect === 'idempotent' ? { [IDEMPOTENCY_META_KEY]: context.idempotencyKey } : undefined;
      const attempt = await server.call(listed.name, input, meta, context.traceparent, context.signal, policy.timeoutSeconds * 1000);
      const outcome = withinSize(outcomeOf(attempt, call, context), policy.maxResultBytes, name, context);
      context.logger.debug({ tool: name, outcome: outcome.kind, ...(outcome.kind === 'result' ? {} : { error: outcome.error }) }, 'MCP tool call settled');
      return outcome;
    },
  };
}

function outcomeOf(attempt: CallAttempt, call: FailedCall, context: ToolContext): ToolOutcome {
  switch (attempt.kind) {
    case 'not_running':
      return { kind: 'failed', error: `MCP server ${call.server} is not running: ${attempt.why}; it is restarted on next use. The call to ${call.tool} was not sent.` };
    case 'not_sent':
      return { kind: 'failed', error: `The call to ${call.tool} ${stoppedHow(context.signal)} before it was sent: nothing happened.` };
    case 'rejected':
      return outcomeOfRejection(attempt.error, context.signal, call);
    case 'answered': {
      const answer = readCallAnswer(attempt.answer);
      switch (answer.kind) {
        case 'result':
          return { kind: 'result', text: answer.text };
        case 'tool_error':
          return { kind: 'failed', error: answer.text };
        case 'unreadable':
          return outcomeOfUnreadableAnswer(answer.problem, call);
        default:
          return assertNever(answer);
      }
    }
    default:
      return assertNever(attempt);
  }
}

/** `outcome`, its text cut to `limit` bytes with a note the model reads; a cut is logged with the whole size. */
function withinSize(outcome: ToolOutcome, limit: number, tool: string, context: ToolContext): ToolOutcome {
  const text = outcome.kind === 'result' ? outcome.text : outcome.error;
  const cut = cutToBytes(text, limit, outcome.kind === 'result' ? 'result' : 'error');
  if (cut === undefined) return outcome;
  context.logger.info({ tool, bytes: cut.bytes, limit }, `the answer of ${tool} was cut to max_result_bytes`);
  return outcome.kind === 'result' ? { kind: 'result', text: cut.text } : { ...outcome, error: cut.text };
}

function stoppedHow(signal: AbortSignal): string {
  const reason: unknown = signal.reason;
  return reason instanceof Error && reason.name === 'TimeoutError' ? 'timed out' : 'was stopped';
}
