import { assertNever } from '../core/assert_never.js';
import { traceparentOf, type TraceRef, type TraceSpan, type Tracer } from '../core/tracing.js';
import type { ToolResultBlock } from '../llm/protocol.js';
import type { OpRecord, OpState } from '../turn_state/ledger_types.js';
import { GEN_AI } from './generation_trace.js';

/** What a ledger state says of a call, as its span's event names it (DESIGN §6). */
type LedgerMoveKind = 'prepared' | 'approval' | 'running' | 'settled' | 'uncertain' | 'verdict';

/** The kind of move that leaves a call in `state`. */
function ledgerMoveKind(state: OpState): LedgerMoveKind {
  switch (state) {
    case 'PREPARED':
      return 'prepared';
    case 'AWAITING_APPROVAL':
    case 'APPROVED':
    case 'DENIED':
      return 'approval';
    case 'RUNNING':
      return 'running';
    case 'APPLIED':
    case 'DEFINITELY_FAILED':
    case 'RECONCILED_APPLIED':
    case 'RECONCILED_FAILED':
      return 'settled';
    case 'OUTCOME_UNKNOWN':
    case 'MANUAL_RESOLUTION_REQUIRED':
      return 'uncertain';
    case 'RESOLVED_APPLIED':
    case 'RESOLVED_NOT_APPLIED':
      return 'verdict';
    default:
      return assertNever(state);
  }
}

/** The event that records `op` entering its state: `ledger.<kind>`, with the exact state and, for a verdict or an answer, who gave it. */
export function noteLedgerState(span: TraceSpan, op: OpRecord): void {
  const by = op.verdict?.by ?? op.approval?.decision?.by;
  span.event(`ledger.${ledgerMoveKind(op.state)}`, { 'holdfast.ledger.state': op.state, 'holdfast.ledger.by': by });
}

/**
 * The span of one tool call (DESIGN §10.3): `execute_tool <tool>` under the turn, named by the
 * GenAI conventions, whose events are the call's ledger moves as this run makes or finds them
 * (`ledger.prepared`, `ledger.running`, `ledger.settled`, `ledger.uncertain`, `ledger.verdict`,
 * `ledger.approval`). Its context is what the call sends as `traceparent`, so that the tool
 * server's own spans join the turn's trace.
 */
export class CallTrace {
  readonly #span: TraceSpan;

  constructor(tracer: Tracer, parent: TraceRef | undefined, op: OpRecord) {
    this.#span = tracer.start(`execute_tool ${op.toolName}`, {
      parent,
      attributes: {
        [GEN_AI.operation]: 'execute_tool',
        [GEN_AI.toolName]: op.toolName,
        [GEN_AI.toolCallId]: op.toolCallId,
        [GEN_AI.toolType]: 'function',
        'holdfast.tool.effect': op.effect,
        'holdfast.step': op.step,
      },
    });
    this.#span.content(GEN_AI.toolArguments, op.input);
    noteLedgerState(this.#span, op);
  }

  /** The W3C trace context the call carries; none when nothing is traced. */
  get traceparent(): string | undefined {
    const { ref } = this.#span;
    return ref === undefined ? undefined : traceparentOf(ref);
  }

  /** The call moved: the op as the move left it. */
  moved(op: OpRecord): void {
    noteLedgerState(this.#span, op);
  }

  /** Ends the span with what the model is told; an error answer marks it failed. */
  answered(block: ToolResultBlock): void {
    this.#span.content(GEN_AI.toolResult, block.content);
    if (block.isError) this.#span.fail('tool_error');
    this.#span.end();
  }

  /** Ends a span whose call threw (the store failed, or the turn was fenced). */
  threw(error: unknown): void {
    this.#span.fail(error instanceof Error ? error.name : 'error');
    this.#span.end();
  }
}
