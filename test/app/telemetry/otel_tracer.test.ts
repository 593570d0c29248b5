import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openTracer } from '../../../src/app/telemetry/otel_tracer.js';
import { telemetrySection, tracesUrl } from '../../../src/app/telemetry/telemetry_settings.js';
import { SecretValues } from '../../../src/core/secret_values.js';
import { OtlpReceiver } from '../../support/otlp_receiver.js';

describe('the telemetry section', () => {
  it('is off by default, and names what is wrong with an endpoint that is not an http(s) URL', () => {
    expect(telemetrySection.parse({})).toEqual({ headers: {}, service_name: 'holdfast', sample_ratio: 1, include_content: false });
    expect(telemetrySection.parse({ otlp_endpoint: '' }).otlp_endpoint).toBeUndefined();
    for (const endpoint of ['collector:4318', 'grpc://collector:4317']) {
      const parsed = telemetrySection.safeParse({ otlp_endpoint: endpoint });
      expect(parsed.success).toBe(false);
      expect(parsed.error?.issues).toEqual([expect.objectContaining({ path: ['otlp_endpoint'], message: `${endpoint} is not an http:// or https:// URL` })]);
    }
    expect(telemetrySection.safeParse({ otlp_endpoint: 'http://collector:4318', sample_ratio: 1.5 }).success).toBe(false);
  });

  it('posts to /v1/traces when the endpoint gives no path, and to the path given otherwise', () => {
    expect(tracesUrl('http://collector:4318')).toBe('http://collector:4318/v1/traces');
    expect(tracesUrl('https://otlp.example.com/otlp/v1/traces')).toBe('https://otlp.example.com/otlp/v1/traces');
  });
});

describe('the OpenTelemetry tracer behind the port (DESIGN §10.3)', () => {
  let collector: OtlpReceiver;
  beforeEach(async () => {
    collector = await OtlpReceiver.start();
  });
  afterEach(() => collector.close());

  function tracer(settings: Record<string, unknown>) {
    const parsed = telemetrySection.parse({ otlp_endpoint: collector.url, ...settings });
    return openTracer({ ...parsed, otlp_endpoint: collector.url }, SecretValues.of(['s3cret-value-1']), pino({ level: 'silent' }));
  }

  it('exports over OTLP/HTTP in protobuf with the configured headers, as the configured service', async () => {
    const traced = tracer({ headers: { authorization: 'Bearer collector-token-1' }, service_name: 'bot-eu' });
    traced.start('holdfast.turn').end();
    await traced.shutdown();
    const [span] = await collector.waitFor((spans) => spans.length === 1);
    expect(span).toMatchObject({ name: 'holdfast.turn', service: 'bot-eu' });
    expect(collector.requests[0]).toMatchObject({ path: '/v1/traces', contentType: 'application/x-protobuf', headers: { authorization: 'Bearer collector-token-1' } });
  });

  it('keeps or drops a turn whole: a resumed run follows the runs it links to, whatever the ratio', async () => {
    const none = tracer({ sample_ratio: 0 });
    const dropped = none.start('holdfast.turn');
    expect(dropped.ref?.sampled).toBe(false);
    const sampledBefore = { traceId: '4bf92f3577b34da6a3ce929d0e0e4736', spanId: '00f067aa0ba902b7', sampled: true };
    const resumed = none.start('holdfast.turn', { links: [sampledBefore] });
    const stillDropped = none.start('holdfast.turn', { links: [dropped.ref ?? sampledBefore] });
    expect(resumed.ref?.sampled).toBe(true);
    expect(stillDropped.ref?.sampled).toBe(false);
    for (const span of [dropped, resumed, stillDropped]) span.end();
    await none.shutdown();
    const spans = await collector.waitFor((all) => all.length === 1);
    expect(spans.map((span) => span.links)).toEqual([[{ traceId: sampledBefore.traceId, spanId: sampledBefore.spanId }]]);
  });

  it('scrubs every string it records, and records content only when asked', async () => {
    const plain = tracer({});
    const span = plain.start('execute_tool lookup', { attributes: { 'holdfast.error': 'refused s3cret-value-1 and Bearer abcdef123456' } });
    span.content('gen_ai.tool.call.arguments', { word: 'milk' });
    span.fail('tool_error', 'said s3cret-value-1');
    span.end();
    span.event('after the end');
    await plain.shutdown();
    const [recorded] = await collector.waitFor((all) => all.length === 1);
    expect(recorded?.attributes).toEqual({ 'holdfast.error': 'refused [REDACTED] and Bearer [REDACTED]', 'error.type': 'tool_error' });
    expect(recorded?.events).toEqual([]);
    expect(recorded?.statusCode).toBe(2);
  });
});
