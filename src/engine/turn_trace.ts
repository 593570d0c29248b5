import { assertNever } from '../core/assert_never.js';
import { parseTraceparent, traceparentOf, type TraceRef, type TraceSpan, type Tracer } from '../core/tracing.js';
import type { GenerateRequest } from '../llm/protocol.js';
import type { LLMProvider } from '../llm/provider.js';
import type { EffectClass, OpRecord } from '../turn_state/ledger_types.js';
import type { Admission, TurnIdentity, TurnRecord } from '../turn_state/turn_types.js';
import { CallTrace, noteLedgerState } from './call_trace.js';
import { shortTurnId } from './call_label.js';
import { GEN_AI, GenerationTrace } from './generation_trace.js';
import type { TurnEnding } from './terminal_writer.js';

/** Who started this run of a turn: a new message, or one of the resumes of DESIGN §9. */
export type TurnRunStart = 'message' | 'requester' | 'automatic' | 'restart' | 'approval';

/** How a run of a turn begins its trace. */
export interface TurnTraceStart {
  readonly identity: TurnIdentity;
  readonly requesterId: string;
  readonly startedBy: TurnRunStart;
  /** The turn's id, when the store already gave it one. */
  readonly turnId?: string;
  /** The span of the message that asked for this run, when one did. */
  readonly received?: TraceRef | undefined;
  /** The `traceparent` of each earlier run of the turn, oldest first: this run's trace links to them. */
  readonly earlier?: readonly string[];
}

/** The most earlier runs a resumed trace links to: the first and the latest, the ones between left out. */
const MAX_LINKS = 32;

/** The strongest effect among a run's calls, as `holdfast.turn.effect` says it. */
const EFFECT_ORDER: readonly (EffectClass | 'none')[] = ['none', 'read', 'idempotent', 'write'];

/**
 * One run of a turn as a trace (DESIGN §10.3): the span `holdfast.turn` — under the message that
 * asked for it, or the root of a new trace for a resume nobody typed — linked to the traces of the
 * turn's earlier runs, so that its whole life is one click away. Its generations and tool calls
 * are its children; its suspension, park or end is its last word. The log lines of the run carry
 * its trace and span ids ({@link logFields}).
 *
 * @example
 * ```ts
 * const trace = TurnTrace.start(tracer, { identity, requesterId, startedBy: 'message', received: message.ref });
 * await store.admit({ ..., trace: trace.traceparent });   // kept, so a resume can link to it
 * const generation = trace.generation(provider, request);
 * generation.observe(event);                               // each attempt, backoff, fallback
 * trace.ended(ending);
 * ```
 */
export class TurnTrace {
  readonly #tracer: Tracer;
  readonly #span: TraceSpan;
  #effect: EffectClass | 'none' = 'none';
  #calls = 0;

  private constructor(tracer: Tracer, span: TraceSpan) {
    this.#tracer = tracer;
    this.#span = span;
  }

  /** Starts the span of a run. */
  static start(tracer: Tracer, start: TurnTraceStart): TurnTrace {
    const earlier = (start.earlier ?? []).flatMap((text) => parseTraceparent(text) ?? []);
    const links = earlier.length <= MAX_LINKS ? earlier : [...earlier.slice(0, 1), ...earlier.slice(earlier.length - MAX_LINKS + 1)];
    const span = tracer.start('holdfast.turn', {
      parent: start.received,
      links,
      kind: start.received === undefined ? 'internal' : 'consumer',
      attributes: {
        [GEN_AI.operation]: 'invoke_agent',
        [GEN_AI.agentName]: 'holdfast',
        [GEN_AI.conversationId]: `${start.identity.source}:${start.identity.channelId}`,
        'holdfast.source': start.identity.source,
        'holdfast.channel': start.identity.channelId,
        'holdfast.message': start.identity.messageId,
        'holdfast.requester': start.requesterId,
        'holdfast.turn.started_by': start.startedBy,
        'holdfast.turn.runs_before': earlier.length,
      },
    });
    const trace = new TurnTrace(tracer, span);
    if (start.turnId !== undefined) trace.named(start.turnId);
    return trace;
  }

  /** The `traceparent` the store keeps with the turn; none when nothing is traced. */
  get traceparent(): string | undefined {
    const { ref } = this.#span;
    return ref === undefined ? undefined : traceparentOf(ref);
  }

  /** What each log line of the run carries: `trace_id` and `span_id`, the fields log tools join to traces by. */
  get logFields(): { readonly trace_id?: string; readonly span_id?: string } {
    const { ref } = this.#span;
    return ref === undefined ? {} : { trace_id: ref.traceId, span_id: ref.spanId };
  }

  /** The store gave the turn its id. */
  named(turnId: string): void {
    this.#span.set({ 'holdfast.turn.id': turnId, 'holdfast.turn.short_id': shortTurnId(turnId) });
  }

  /** A generation of this run, starting now on `first`, the route's first model. */
  generation(first: LLMProvider, request: GenerateRequest): GenerationTrace {
    return new GenerationTrace(this.#tracer, this.#span.ref, first, request);
  }

  /** A tool call of this run, starting now; its effect counts toward the turn's. */
  call(op: OpRecord): CallTrace {
    this.#calls += 1;
    if (EFFECT_ORDER.indexOf(op.effect) > EFFECT_ORDER.indexOf(this.#effect)) this.#effect = op.effect;
    return new CallTrace(this.#tracer, this.#span.ref, op);
  }

  /** The store would not let the message run fresh: `disposition` says why (it was answered, or is running elsewhere). */
  refused(disposition: Exclude<Admission['disposition'], 'admitted'>): void {
    this.#span.set({ 'holdfast.turn.admission': disposition });
    this.#span.end();
  }

  /** Another process resumed the turn first; this run did nothing. */
  lostClaim(): void {
    this.#span.set({ 'holdfast.turn.claim': 'lost' });
    this.#span.end();
  }

  /** How the run ended: the turn's status, and why it stopped when it did not complete. */
  ended(ending: TurnEnding): void {
    const span = this.#span;
    span.set({ 'holdfast.turn.status': ending.status, 'holdfast.turn.effect': this.#effect, 'holdfast.turn.calls': this.#calls });
    switch (ending.status) {
      case 'TERMINAL_COMPLETED':
        span.content('holdfast.reply', ending.reply);
        if (ending.writtenBy !== undefined) span.set({ 'holdfast.reply.model': ending.writtenBy.model, 'holdfast.reply.fallback': ending.writtenBy.fallback });
        break;
      case 'TERMINAL_FAILED':
        span.fail(ending.reason);
        break;
      case 'TERMINAL_CANCELLED':
        span.event('holdfast.turn.cancelled');
        break;
      case 'SUSPENDED':
        span.event('holdfast.turn.suspended', { 'holdfast.suspension.cause': ending.suspendedFor });
        break;
      case 'AWAITING_RESOLUTION':
        span.event('holdfast.turn.awaiting_resolution', { 'holdfast.calls': ending.awaiting.map((call) => call.label) });
        break;
      case 'AWAITING_APPROVAL':
        span.event('holdfast.turn.awaiting_approval', { 'holdfast.calls': ending.asking.map((call) => call.label) });
        break;
      case 'TERMINAL_REJECTED':
        span.fail(ending.reason.kind === 'uncertain' ? 'uncertain_calls' : 'unresumable');
        break;
      case 'untouched':
      case 'unrecorded':
        span.event(`holdfast.turn.${ending.status}`);
        break;
      default:
        assertNever(ending);
    }
    span.end();
  }

  /** Ends a run that threw instead of ending (a bug, or a crash simulated by a test). */
  threw(error: unknown): void {
    this.#span.fail(error instanceof Error ? error.name : 'error');
    this.#span.end();
  }
}

/**
 * The span of a message the bot received for a turn (DESIGN §10.3), `holdfast.message`: from the
 * moment it is taken into its channel's lane until its turn's run is over, so that its wait in
 * the lane shows before the turn's span begins. `kind` says whether it asks for a new turn or a
 * resume; its text is kept only with `telemetry.include_content`.
 */
export function receivedSpan(tracer: Tracer, identity: TurnIdentity, requesterId: string, kind: 'message' | 'resume', text: string): TraceSpan {
  const span = tracer.start('holdfast.message', {
    kind: 'consumer',
    attributes: {
      'holdfast.source': identity.source,
      'holdfast.channel': identity.channelId,
      'holdfast.message': identity.messageId,
      'holdfast.requester': requesterId,
      'holdfast.message.kind': kind,
    },
  });
  span.content('holdfast.message.text', text);
  return span;
}

/**
 * What a restart found of a turn it interrupted (DESIGN §9): a span `holdfast.turn.interrupted`
 * in the trace of the turn's last run, under that run's span, with each of its calls as the
 * start-up sweep left it — a write cut off mid-call shows there as `ledger.uncertain`. A turn
 * with no trace kept gets none.
 */
export function traceInterrupted(tracer: Tracer, turn: TurnRecord, ops: readonly OpRecord[]): void {
  const last = turn.traces.at(-1);
  const parent = last === undefined ? undefined : parseTraceparent(last);
  if (parent === undefined) return;
  const span = tracer.start('holdfast.turn.interrupted', {
    parent,
    attributes: { 'holdfast.turn.id': turn.turnId, 'holdfast.turn.short_id': shortTurnId(turn.turnId), 'holdfast.turn.status': turn.status },
  });
  for (const op of ops) noteLedgerState(span, op);
  span.end();
}
