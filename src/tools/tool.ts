import type { Logger } from '../core/logger.js';
import type { JsonObject, JsonValue } from '../llm/protocol.js';
import type { EffectClass } from '../turn_state/ledger_types.js';

/**
 * What running a tool came to. The three must never blur (DESIGN §6): `result` and `failed` are
 * known outcomes; `uncertain` means the effect may have happened, and nothing may retry it
 * blindly.
 */
export type ToolOutcome =
  { readonly kind: 'result'; readonly text: string; readonly data?: JsonValue } | { readonly kind: 'failed'; readonly error: string } | { readonly kind: 'uncertain'; readonly error: string };

/** What a tool knows about the call it serves. */
export interface ToolContext {
  /** Aborts when the tool's timeout passes, and on /stop for a {@link Tool.cancellable} tool. */
  readonly signal: AbortSignal;
  /** The op's stable key: the same on every attempt of this call, across crashes and resumes. */
  readonly idempotencyKey: string;
  readonly requesterId: string;
  readonly channel: { readonly source: string; readonly channelId: string };
  readonly logger: Logger;
  /**
   * The W3C trace context of the call's span (`00-<trace id>-<span id>-<flags>`), sent with the
   * call so the tool server's own spans join the turn's trace; none when tracing is off.
   */
  readonly traceparent?: string;
}

/** Whether a tool's calls wait for a person's approval before they run (DESIGN §9.2). */
export const TOOL_APPROVALS = ['required', 'never'] as const;
export type ToolApproval = (typeof TOOL_APPROVALS)[number];

/** A tool the model may call. */
export interface Tool {
  readonly name: string;
  /** What the model is told the tool does. */
  readonly description: string;
  /** JSON Schema of the input object; sent to the model as it is and checked before anything runs. */
  readonly inputSchema: JsonObject;
  readonly effect: EffectClass;
  /** How long one call may take before it is aborted. */
  readonly timeoutMs: number;
  /**
   * Whether /stop reaches a call that is running, through `ToolContext.signal`: true for a tool
   * that can tell its target to stop (MCP's cancellation). Any other call settles within its timeout.
   */
  readonly cancellable?: boolean;
  /**
   * Whether its calls wait for a person's approval (DESIGN §9.2): as configured for the tool
   * (none: its effect class's default decides), and, on the tools a turn is offered, as decided
   * for that turn's channel.
   */
  readonly approval?: ToolApproval;
  /** Runs the call on input that already matches `inputSchema`; reports, never throws, what happened. */
  execute(input: JsonObject, context: ToolContext): Promise<ToolOutcome>;
}
