/**
 * The tracing port (DESIGN §10.3): what the bot says about a turn's life as spans, without knowing
 * OpenTelemetry. The program passes {@link NO_TRACER} unless `telemetry.otlp_endpoint` is set; only
 * then is the OpenTelemetry SDK loaded behind this interface (src/app/telemetry).
 *
 * @example
 * ```ts
 * const turn = tracer.start('holdfast.turn', { parent: received, attributes: { 'holdfast.turn.id': id } });
 * const call = tracer.start('execute_tool web_fetch', { parent: turn, kind: 'internal' });
 * call.event('ledger.RUNNING');
 * call.content('gen_ai.tool.call.arguments', input); // kept only with telemetry.include_content
 * call.end();
 * turn.end();
 * ```
 */

/** An attribute's value: what OpenTelemetry takes, `undefined` meaning "leave it out". */
export type TraceValue = string | number | boolean | readonly string[] | undefined;

export type TraceAttributes = Readonly<Record<string, TraceValue>>;

/** A span's place in its trace, as the W3C `traceparent` header carries it. */
export interface TraceRef {
  /** 32 lowercase hex digits. */
  readonly traceId: string;
  /** 16 lowercase hex digits. */
  readonly spanId: string;
  /** Whether the trace is sampled, so kept by the collector. */
  readonly sampled: boolean;
}

/** What a span is to the process that records it. */
export type SpanKind = 'internal' | 'server' | 'client' | 'consumer';

/** How a span begins: under `parent` (none: a new trace), linked to `links` (the earlier traces of the same turn). */
export interface SpanStart {
  readonly parent?: TraceRef | undefined;
  readonly links?: readonly TraceRef[];
  readonly attributes?: TraceAttributes;
  readonly kind?: SpanKind;
}

/** One span in progress. Every method is a no-op once it ended. */
export interface TraceSpan {
  /** Where the span sits; `undefined` when nothing is traced. */
  readonly ref: TraceRef | undefined;
  set(attributes: TraceAttributes): void;
  event(name: string, attributes?: TraceAttributes): void;
  /**
   * Message text, tool arguments or results, under `key` as JSON: kept only with
   * `telemetry.include_content`, and then with every secret scrubbed out as the store scrubs it.
   */
  content(key: string, value: unknown): void;
  /** Marks the span failed, `type` naming why (OpenTelemetry's `error.type`). */
  fail(type: string, description?: string): void;
  end(): void;
}

/** Starts spans. */
export interface Tracer {
  start(name: string, options?: SpanStart): TraceSpan;
  /** Sends what is still buffered and stops; nothing is traced after. */
  shutdown(): Promise<void>;
}

const NO_SPAN: TraceSpan = {
  ref: undefined,
  set: () => undefined,
  event: () => undefined,
  content: () => undefined,
  fail: () => undefined,
  end: () => undefined,
};

/** The tracer of a bot without telemetry: every span is a no-op, and no id is made. */
export const NO_TRACER: Tracer = { start: () => NO_SPAN, shutdown: () => Promise.resolve() };

const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

/** `ref` as a W3C `traceparent` value: `00-<trace id>-<span id>-<flags>`. */
export function traceparentOf(ref: TraceRef): string {
  return `00-${ref.traceId}-${ref.spanId}-${ref.sampled ? '01' : '00'}`;
}

/** The span a W3C `traceparent` value names; `undefined` for anything else, an all-zero id included. */
export function parseTraceparent(text: string): TraceRef | undefined {
  const match = TRACEPARENT.exec(text);
  if (match === null) return undefined;
  const [, traceId = '', spanId = '', flags = '00'] = match;
  if (/^0+$/.test(traceId) || /^0+$/.test(spanId)) return undefined;
  return { traceId, spanId, sampled: (Number.parseInt(flags, 16) & 1) === 1 };
}
