import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { assertNever } from '../../core/assert_never.js';
import type { EffectClass } from '../../turn_state/ledger_types.js';
import { classifyFetchFailure } from '../http_failure.js';
import type { ToolOutcome } from '../tool.js';

/** The call a failure belongs to, for the words of its outcome. */
export interface FailedCall {
  /** The tool as the catalog names it, `<server>__<tool>`. */
  readonly tool: string;
  readonly server: string;
  readonly effect: EffectClass;
  readonly timeoutSeconds: number;
}

/** JSON-RPC errors that say the server refused the request itself: the tool never ran. */
const REFUSALS: ReadonlySet<number> = new Set([ErrorCode.ParseError, ErrorCode.InvalidRequest, ErrorCode.MethodNotFound, ErrorCode.InvalidParams]);

/**
 * The outcome of a `tools/call` that was sent and then rejected, decided on the error's fields
 * and the call's signal. A call cut off in flight (the server died, the connection broke) is
 * uncertain whatever its effect class, so that the ledger decides (DESIGN §6: a read runs again,
 * an idempotent call is re-sent with its key, a write waits for a person). A call cancelled by
 * /stop or its timeout, or answered with an error mid-way, may have had its effect: a read simply
 * failed, anything else is uncertain. A request the server refused as malformed, or one that
 * never left, failed.
 */
export function outcomeOfRejection(error: unknown, signal: AbortSignal, call: FailedCall): ToolOutcome {
  const cancelled = cancellation(error, signal, call.timeoutSeconds);
  if (cancelled !== undefined) return afterSending(call, `${call.tool} ${cancelled}; MCP server ${call.server} was told to cancel it`);
  if (error instanceof McpError) {
    if (error.code === Number(ErrorCode.ConnectionClosed)) return cutOff(call, 'the connection closed');
    if (REFUSALS.has(error.code)) return { kind: 'failed', error: `MCP server ${call.server} refused the call to ${call.tool}: ${error.message}` };
    return afterSending(call, `MCP server ${call.server} answered the call to ${call.tool} with an error (${error.message})`);
  }
  const failure = classifyFetchFailure(error, signal, call.timeoutSeconds);
  switch (failure.stage) {
    case 'not_sent':
      return { kind: 'failed', error: `The call to ${call.tool} was not sent: MCP server ${call.server} ${failure.what}. Nothing happened.` };
    case 'maybe_sent':
      return cutOff(call, failure.what);
    default:
      return assertNever(failure.stage);
  }
}

/**
 * The outcome of a call the server answered with something that is not a tool result: it may
 * have run all the same.
 */
export function outcomeOfUnreadableAnswer(problem: string, call: FailedCall): ToolOutcome {
  return afterSending(call, `MCP server ${call.server} answered the call to ${call.tool}, but ${problem}`);
}

/** The outcome of a call whose connection ended while it was in flight: nobody knows whether it ran. */
function cutOff(call: FailedCall, what: string): ToolOutcome {
  return { kind: 'uncertain', error: `${call.tool} was cut off while running (MCP server ${call.server}: ${what}): the call may or may not have taken effect.` };
}

/** `timed out after 30 s` or `was stopped` when the call was cancelled; `undefined` when it was not. */
function cancellation(error: unknown, signal: AbortSignal, timeoutSeconds: number): string | undefined {
  if (signal.aborted) return fieldOf(signal.reason, 'name') === 'TimeoutError' ? `timed out after ${timeoutSeconds} s` : 'was stopped';
  if (error instanceof McpError && error.code === Number(ErrorCode.RequestTimeout)) return `timed out after ${timeoutSeconds} s`;
  return undefined;
}

/** After the request may have reached the server: a read changed nothing, anything else may have. */
function afterSending(call: FailedCall, happened: string): ToolOutcome {
  switch (call.effect) {
    case 'read':
      return { kind: 'failed', error: `${happened}.` };
    case 'idempotent':
    case 'write':
      return { kind: 'uncertain', error: `${happened}: the change may or may not have happened.` };
    default:
      return assertNever(call.effect);
  }
}

function fieldOf(value: unknown, key: string): unknown {
  return typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[key] : undefined;
}
