import { mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Where {@link OtlpReceiver.saveTree} writes: `test-output/traces/` at the repository's root, ignored by git. */
const TRACES_DIR = fileURLToPath(new URL('../../test-output/traces/', import.meta.url));

/** A value of an attribute as OTLP's protobuf carries it, decoded. */
type AnyValue = { stringValue?: string; boolValue?: boolean; intValue?: string | number; doubleValue?: number; arrayValue?: { values?: AnyValue[] } };
interface KeyValue {
  key: string;
  value?: AnyValue;
}
interface DecodedSpan {
  traceId: Uint8Array;
  spanId: Uint8Array;
  parentSpanId?: Uint8Array;
  name: string;
  kind?: number;
  startTimeUnixNano?: string;
  attributes?: KeyValue[];
  events?: { name: string; attributes?: KeyValue[] }[];
  links?: { traceId: Uint8Array; spanId: Uint8Array }[];
  status?: { code?: number; message?: string };
}
interface DecodedRequest {
  resourceSpans?: { resource?: { attributes?: KeyValue[] }; scopeSpans?: { spans?: DecodedSpan[] }[] }[];
}
interface RequestType {
  decode(bytes: Uint8Array): unknown;
  toObject(message: unknown, options: { longs: typeof String; defaults: boolean }): DecodedRequest;
}

/** The OTLP protobuf types as the official transformer package generated them, loaded as its exporter loads them. */
const ExportTraceServiceRequest = (
  createRequire(import.meta.url)('@opentelemetry/otlp-transformer/build/src/generated/root.js') as {
    opentelemetry: { proto: { collector: { trace: { v1: { ExportTraceServiceRequest: RequestType } } } } };
  }
).opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;

export type AttributeValue = string | number | boolean | AttributeValue[];

/** One span as the receiver got it: ids in hex, attributes as plain values. */
export interface ReceivedSpan {
  readonly traceId: string;
  readonly spanId: string;
  /** Empty for the root of a trace. */
  readonly parentSpanId: string;
  readonly name: string;
  /** OTLP's numbers: 1 internal, 2 server, 3 client, 4 producer, 5 consumer. */
  readonly kind: number;
  /** When it started, in microseconds since the epoch. */
  readonly startUs: number;
  readonly attributes: Readonly<Record<string, AttributeValue>>;
  readonly events: readonly { readonly name: string; readonly attributes: Readonly<Record<string, AttributeValue>> }[];
  readonly links: readonly { readonly traceId: string; readonly spanId: string }[];
  /** 0 unset, 1 ok, 2 error. */
  readonly statusCode: number;
  /** The `service.name` of the process that sent it. */
  readonly service: string;
}

/** What the receiver saw of one export request. */
export interface ExportRequest {
  readonly path: string;
  readonly contentType: string;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
}

/** The attributes {@link OtlpReceiver.tree} shows, where a span or an event has them: what a reader looks for first. */
const SHOWN = [
  'holdfast.message.kind',
  'holdfast.turn.short_id',
  'holdfast.turn.started_by',
  'holdfast.turn.status',
  'holdfast.turn.effect',
  'gen_ai.request.model',
  'gen_ai.response.model',
  'gen_ai.usage.input_tokens',
  'gen_ai.usage.output_tokens',
  'gen_ai.response.finish_reasons',
  'holdfast.attempt',
  'holdfast.breaker.probe',
  'holdfast.breaker.state',
  'error.type',
  'http.response.status_code',
  'holdfast.fallback.from',
  'holdfast.fallback.to',
  'holdfast.backoff.ms',
  'gen_ai.tool.call.id',
  'holdfast.tool.effect',
  'holdfast.ledger.state',
  'holdfast.ledger.by',
  'holdfast.suspension.cause',
];

function shown(attributes: Readonly<Record<string, AttributeValue>>): string {
  const pairs = SHOWN.filter((key) => key in attributes).map((key) => `${key}=${JSON.stringify(attributes[key])}`);
  return pairs.length === 0 ? '' : `  ${pairs.join(' ')}`;
}

const hex = (bytes: Uint8Array | undefined): string => Buffer.from(bytes ?? []).toString('hex');

function valueOf(value: AnyValue | undefined): AttributeValue {
  if (value === undefined) return '';
  if (value.stringValue !== undefined) return value.stringValue;
  if (value.boolValue !== undefined) return value.boolValue;
  if (value.intValue !== undefined) return Number(value.intValue);
  if (value.doubleValue !== undefined) return value.doubleValue;
  return (value.arrayValue?.values ?? []).map(valueOf);
}

function attributesOf(list: readonly KeyValue[] | undefined): Record<string, AttributeValue> {
  return Object.fromEntries((list ?? []).map((pair) => [pair.key, valueOf(pair.value)]));
}

/**
 * A trace collector for the tests: a real OTLP/HTTP receiver on 127.0.0.1 that decodes each
 * protobuf export with the official OpenTelemetry packages and keeps every span, in the order
 * they came. Tests wait for spans with {@link waitFor}, never by sleeping.
 */
export class OtlpReceiver {
  readonly spans: ReceivedSpan[] = [];
  readonly requests: ExportRequest[] = [];
  readonly #server: Server;
  readonly #waiters = new Set<() => void>();

  private constructor() {
    this.#server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        this.requests.push({ path: request.url ?? '', contentType: request.headers['content-type'] ?? '', headers: request.headers });
        this.#receive(Buffer.concat(chunks));
        response.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
      });
    });
  }

  static async start(): Promise<OtlpReceiver> {
    const receiver = new OtlpReceiver();
    await new Promise<void>((resolve) => receiver.#server.listen(0, '127.0.0.1', resolve));
    return receiver;
  }

  /** The endpoint to configure as `telemetry.otlp_endpoint`. */
  get url(): string {
    return `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}/v1/traces`;
  }

  /** Resolves with the spans once `ready(spans)` holds of what arrived, checked at each export. */
  async waitFor(ready: (spans: readonly ReceivedSpan[]) => boolean): Promise<readonly ReceivedSpan[]> {
    await new Promise<void>((resolve) => {
      const check = (): void => {
        if (!ready(this.spans)) return;
        this.#waiters.delete(check);
        resolve();
      };
      this.#waiters.add(check);
      check();
    });
    return this.spans;
  }

  /** The spans of one trace, in the order they started. */
  trace(traceId: string): ReceivedSpan[] {
    return this.spans.filter((span) => span.traceId === traceId).sort((a, b) => a.startUs - b.startUs);
  }

  /** A trace as an indented tree of spans, each with its events and the attributes a reader looks for first, children in the order they started: what a trace viewer shows. */
  tree(traceId: string): string {
    const spans = this.trace(traceId);
    const ids = new Set(spans.map((span) => span.spanId));
    const lines: string[] = [];
    const walk = (span: ReceivedSpan, depth: number): void => {
      const links = span.links.map((link) => ` ↪ linked to trace ${link.traceId}`).join('');
      lines.push(`${'  '.repeat(depth)}${span.name}${span.statusCode === 2 ? ' [error]' : ''}${shown(span.attributes)}${links}`);
      for (const event of span.events) lines.push(`${'  '.repeat(depth + 1)}· ${event.name}${shown(event.attributes)}`);
      for (const child of spans.filter((other) => other.parentSpanId === span.spanId)) walk(child, depth + 1);
    };
    for (const root of spans.filter((span) => !ids.has(span.parentSpanId))) walk(root, 0);
    return lines.join('\n');
  }

  /** Writes the {@link tree}s of `traceIds`, in order, as `test-output/traces/<name>.txt`, for a reader to look at. */
  saveTree(name: string, traceIds: readonly string[]): void {
    mkdirSync(TRACES_DIR, { recursive: true });
    writeFileSync(join(TRACES_DIR, `${name}.txt`), `${traceIds.map((id) => `trace ${id}\n${this.tree(id)}`).join('\n\n')}\n`);
  }

  async close(): Promise<void> {
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  #receive(body: Buffer): void {
    const request = ExportTraceServiceRequest.toObject(ExportTraceServiceRequest.decode(body), { longs: String, defaults: false });
    for (const resourceSpans of request.resourceSpans ?? []) {
      const service = String(attributesOf(resourceSpans.resource?.attributes)['service.name'] ?? '');
      for (const scope of resourceSpans.scopeSpans ?? []) {
        for (const span of scope.spans ?? []) {
          this.spans.push({
            traceId: hex(span.traceId),
            spanId: hex(span.spanId),
            parentSpanId: hex(span.parentSpanId),
            name: span.name,
            kind: span.kind ?? 0,
            startUs: Number(BigInt(span.startTimeUnixNano ?? '0') / 1000n),
            attributes: attributesOf(span.attributes),
            events: (span.events ?? []).map((event) => ({ name: event.name, attributes: attributesOf(event.attributes) })),
            links: (span.links ?? []).map((link) => ({ traceId: hex(link.traceId), spanId: hex(link.spanId) })),
            statusCode: span.status?.code ?? 0,
            service,
          });
        }
      }
    }
    for (const waiter of [...this.#waiters]) waiter();
  }
}
