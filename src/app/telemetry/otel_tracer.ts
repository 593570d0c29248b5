import { hostname } from 'node:os';
import { diag, DiagLogLevel, ROOT_CONTEXT, SpanKind as OtelSpanKind, SpanStatusCode, trace, TraceFlags, type Attributes, type Link, type Span, type SpanContext } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, BatchSpanProcessor, ParentBasedSampler, SamplingDecision, TraceIdRatioBasedSampler, type Sampler } from '@opentelemetry/sdk-trace-base';
import { assertNever } from '../../core/assert_never.js';
import type { Logger } from '../../core/logger.js';
import type { SecretValues } from '../../core/secret_values.js';
import type { SpanKind, TraceAttributes, TraceRef, TraceSpan, Tracer } from '../../core/tracing.js';
import { scrubSecrets, scrubText } from '../../turn_state/scrub.js';
import { tracesUrl, type TelemetrySettings } from './telemetry_settings.js';

/** The instrumentation scope the spans are recorded under. */
const SCOPE = 'holdfast';

/** How long one export may take: a collector that is down delays a shutdown by no more than this. */
const EXPORT_TIMEOUT_MS = 5000;

/**
 * The {@link Tracer} of a bot with `telemetry.otlp_endpoint` (DESIGN §10.3): the official
 * OpenTelemetry SDK, batching spans to the collector over OTLP/HTTP (protobuf). Every string it
 * records — names of things, errors, and content when `include_content` lets it — passes through
 * the same scrubbing as what the store writes, then the configured secrets' redaction. This module
 * is imported only when telemetry is on, so a bot without it loads none of OpenTelemetry.
 */
export function openTracer(settings: TelemetrySettings & { readonly otlp_endpoint: string }, secrets: SecretValues, logger: Logger): Tracer {
  const log = logger.child({ component: 'telemetry' });
  diag.setLogger(
    {
      error: (message, ...args) => log.warn({ detail: args.map(String) }, `traces: ${message}`),
      warn: (message, ...args) => log.warn({ detail: args.map(String) }, `traces: ${message}`),
      info: () => undefined,
      debug: () => undefined,
      verbose: () => undefined,
    },
    { logLevel: DiagLogLevel.WARN, suppressOverrideMessage: true },
  );
  const url = tracesUrl(settings.otlp_endpoint);
  const exporter = new OTLPTraceExporter({ url, headers: settings.headers, timeoutMillis: EXPORT_TIMEOUT_MS });
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ 'service.name': settings.service_name, 'host.name': hostname(), 'process.pid': process.pid }),
    sampler: new ParentBasedSampler({ root: new EarlierRunsSampler(new TraceIdRatioBasedSampler(settings.sample_ratio)) }),
    spanProcessors: [new BatchSpanProcessor(exporter, { exportTimeoutMillis: EXPORT_TIMEOUT_MS })],
  });
  const tracer = provider.getTracer(SCOPE);
  const scrub = (text: string): string => secrets.redact(scrubText(text));
  log.info({ endpoint: url, sample_ratio: settings.sample_ratio, include_content: settings.include_content }, 'traces go to the OTLP endpoint');
  return {
    start: (name, options = {}) => {
      const parent = options.parent === undefined ? ROOT_CONTEXT : trace.setSpanContext(ROOT_CONTEXT, spanContextOf(options.parent));
      const span = tracer.startSpan(name, { kind: otelKind(options.kind), attributes: scrubbed(options.attributes ?? {}, scrub), links: (options.links ?? []).map(linkOf) }, parent);
      return new OtelSpan(span, scrub, settings.include_content);
    },
    shutdown: () => provider.shutdown(),
  };
}

/**
 * Roots with links are the resumed runs of a turn (DESIGN §10.3): traced when an earlier run was,
 * and not otherwise, so that `sample_ratio` keeps or drops a turn's whole life. Any other root is
 * decided by `ratio`.
 */
class EarlierRunsSampler implements Sampler {
  constructor(private readonly ratio: Sampler) {}

  shouldSample(...args: Parameters<Sampler['shouldSample']>): ReturnType<Sampler['shouldSample']> {
    const links = args[5];
    if (links.length === 0) return this.ratio.shouldSample(...args);
    const sampled = links.some((link) => isSampled(link.context.traceFlags));
    return { decision: sampled ? SamplingDecision.RECORD_AND_SAMPLED : SamplingDecision.NOT_RECORD };
  }

  toString(): string {
    return `EarlierRunsSampler{${this.ratio.toString()}}`;
  }
}

/** One span of the SDK behind the port; nothing reaches it after it ended. */
class OtelSpan implements TraceSpan {
  readonly ref: TraceRef;
  #ended = false;

  constructor(
    private readonly span: Span,
    private readonly scrub: (text: string) => string,
    private readonly withContent: boolean,
  ) {
    const context = span.spanContext();
    this.ref = { traceId: context.traceId, spanId: context.spanId, sampled: isSampled(context.traceFlags) };
  }

  set(attributes: TraceAttributes): void {
    if (!this.#ended) this.span.setAttributes(scrubbed(attributes, this.scrub));
  }

  event(name: string, attributes: TraceAttributes = {}): void {
    if (!this.#ended) this.span.addEvent(name, scrubbed(attributes, this.scrub));
  }

  content(key: string, value: unknown): void {
    if (this.#ended || !this.withContent || value === undefined) return;
    const text = typeof value === 'string' ? value : JSON.stringify(scrubSecrets(value));
    this.span.setAttribute(key, this.scrub(text));
  }

  fail(type: string, description?: string): void {
    if (this.#ended) return;
    this.span.setAttribute('error.type', type);
    this.span.setStatus({ code: SpanStatusCode.ERROR, ...(description === undefined ? {} : { message: this.scrub(description) }) });
  }

  end(): void {
    if (this.#ended) return;
    this.#ended = true;
    this.span.end();
  }
}

/** The attributes as OpenTelemetry takes them: absent values left out, every string scrubbed. */
function scrubbed(attributes: TraceAttributes, scrub: (text: string) => string): Attributes {
  const kept: Attributes = {};
  for (const [key, value] of Object.entries(attributes)) {
    if (value === undefined) continue;
    if (typeof value === 'string') kept[key] = scrub(value);
    else if (typeof value === 'number' || typeof value === 'boolean') kept[key] = value;
    else kept[key] = value.map(scrub);
  }
  return kept;
}

function isSampled(flags: number): boolean {
  return (flags & TraceFlags.SAMPLED) !== 0;
}

function spanContextOf(ref: TraceRef): SpanContext {
  return { traceId: ref.traceId, spanId: ref.spanId, traceFlags: ref.sampled ? TraceFlags.SAMPLED : TraceFlags.NONE, isRemote: true };
}

function linkOf(ref: TraceRef): Link {
  return { context: spanContextOf(ref) };
}

function otelKind(kind: SpanKind | undefined): OtelSpanKind {
  switch (kind) {
    case undefined:
    case 'internal':
      return OtelSpanKind.INTERNAL;
    case 'server':
      return OtelSpanKind.SERVER;
    case 'client':
      return OtelSpanKind.CLIENT;
    case 'consumer':
      return OtelSpanKind.CONSUMER;
    default:
      return assertNever(kind);
  }
}
