import { type AddressInfo, createServer } from 'node:net';
import { Gauge } from 'prom-client';
import { afterEach, describe, expect, it } from 'vitest';
import { HoldfastMetrics } from '../../../src/app/metrics/holdfast_metrics.js';
import { isListenError, type HttpListener } from '../../../src/app/http_listener.js';
import { startMetricsServer } from '../../../src/app/metrics/metrics_server.js';
import { readiness } from '../../../src/app/metrics/readiness.js';
import { sampleValue } from '../../support/prometheus_text.js';

describe('the metrics server', () => {
  const up = { store: true, transport: true };
  let server: HttpListener | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
    up.store = true;
    up.transport = true;
  });

  async function start(): Promise<HttpListener> {
    const metrics = new HoldfastMetrics();
    metrics.turnsEnded('completed');
    server = await startMetricsServer({ host: '127.0.0.1', port: 0 }, { registry: metrics.registry, readiness: () => readiness({ store: () => up.store, transport: () => up.transport }) });
    return server;
  }

  it('serves the metrics in the Prometheus text format at /metrics, on the port it was given (any free one for 0)', async () => {
    const { url } = await start();
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:[1-9]\d*$/);
    const response = await fetch(`${url}/metrics`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
    const text = await response.text();
    expect(sampleValue(text, 'holdfast_turns_total', { status: 'completed' })).toBe(1);
    expect(text).toContain('# TYPE nodejs_eventloop_lag_seconds gauge');
  });

  it('answers 500 saying why when a metric cannot be collected, and serves the metrics again once it can', async () => {
    const metrics = new HoldfastMetrics();
    let broken = true;
    new Gauge({
      name: 'holdfast_test_census',
      help: 'A gauge read from a store that may be down.',
      registers: [metrics.registry],
      collect() {
        if (broken) throw new Error('the store is unreachable');
        this.set(1);
      },
    });
    server = await startMetricsServer({ host: '127.0.0.1', port: 0 }, { registry: metrics.registry, readiness: () => readiness({ store: () => true, transport: () => true }) });
    const failed = await fetch(`${server.url}/metrics`);
    expect([failed.status, await failed.text()]).toEqual([500, 'the metrics could not be collected: the store is unreachable\n']);
    broken = false;
    expect(sampleValue(await (await fetch(`${server.url}/metrics`)).text(), 'holdfast_test_census', {})).toBe(1);
  });

  it('answers /healthz 200 while it runs, and /readyz 200 only while the store and the transport are up, else 503 naming what is not', async () => {
    const { url } = await start();
    const get = async (path: string) => {
      const response = await fetch(`${url}${path}`);
      return { status: response.status, body: await response.json() };
    };
    expect(await get('/healthz')).toEqual({ status: 200, body: { live: true } });
    expect(await get('/readyz')).toEqual({ status: 200, body: { ready: true } });
    up.transport = false;
    expect(await get('/readyz')).toEqual({ status: 503, body: { ready: false, not_ready: ['transport'] } });
    up.store = false;
    expect(await get('/readyz')).toEqual({ status: 503, body: { ready: false, not_ready: ['store', 'transport'] } });
    up.transport = true;
    expect(await get('/readyz')).toEqual({ status: 503, body: { ready: false, not_ready: ['store'] } });
    expect(await get('/healthz')).toEqual({ status: 200, body: { live: true } });
  });

  it('answers 404 for any other path and 405 for anything but GET and HEAD', async () => {
    const { url } = await start();
    expect((await fetch(`${url}/`)).status).toBe(404);
    expect((await fetch(`${url}/metrics/extra`)).status).toBe(404);
    const post = await fetch(`${url}/metrics`, { method: 'POST' });
    expect([post.status, post.headers.get('allow')]).toEqual([405, 'GET, HEAD']);
    const head = await fetch(`${url}/readyz`, { method: 'HEAD' });
    expect(head.status).toBe(200);
  });

  it('stops listening when closed', async () => {
    const { url } = await start();
    await server?.close();
    server = undefined;
    await expect(fetch(`${url}/healthz`)).rejects.toThrow();
  });

  it('fails with the address and the cause when the port is taken', async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const { port } = taken.address() as AddressInfo;
    try {
      const metrics = new HoldfastMetrics();
      const failed: unknown = await startMetricsServer({ host: '127.0.0.1', port }, { registry: metrics.registry, readiness: () => Promise.resolve({ ready: true }) }).catch((error: unknown) => error);
      expect(isListenError(failed)).toBe(true);
      expect(failed).toMatchObject({ key: 'metrics.listen', address: `127.0.0.1:${port}`, code: 'EADDRINUSE' });
      expect((failed as Error).message).toMatch(new RegExp(`^metrics\\.listen 127\\.0\\.0\\.1:${port}: cannot listen there: listen EADDRINUSE`));
    } finally {
      await new Promise<void>((resolve) => taken.close(() => resolve()));
    }
  });
});
