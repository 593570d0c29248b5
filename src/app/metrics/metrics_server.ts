import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Registry } from 'prom-client';
import { listenAt, type HttpListener, type ListenAddress } from '../http_listener.js';
import type { Readiness } from './readiness.js';

/** What the server answers from. */
export interface MetricsEndpoints {
  readonly registry: Registry;
  readonly readiness: () => Promise<Readiness>;
}

/**
 * Serves `/metrics` (Prometheus text format), `/healthz` (200 while the process runs) and
 * `/readyz` (200 `{"ready":true}`, or 503 `{"ready":false,"not_ready":[…]}`) at `address`, with
 * node:http; any other path is 404.
 * @throws {ListenError} when it cannot listen there.
 */
export function startMetricsServer(address: ListenAddress, endpoints: MetricsEndpoints): Promise<HttpListener> {
  return listenAt(
    createServer((request, response) => void answer(request, response, endpoints)),
    address,
    'metrics.listen',
  );
}

async function answer(request: IncomingMessage, response: ServerResponse, endpoints: MetricsEndpoints): Promise<void> {
  if (request.method !== 'GET' && request.method !== 'HEAD') {
    send(response, 405, 'application/json', { error: 'method not allowed' }, { allow: 'GET, HEAD' });
    return;
  }
  const path = new URL(request.url ?? '/', 'http://localhost').pathname;
  switch (path) {
    case '/metrics':
      try {
        const text = await endpoints.registry.metrics();
        send(response, 200, endpoints.registry.contentType, text);
      } catch (error) {
        send(response, 500, 'text/plain; charset=utf-8', `the metrics could not be collected: ${error instanceof Error ? error.message : String(error)}\n`);
      }
      return;
    case '/healthz':
      send(response, 200, 'application/json', { live: true });
      return;
    case '/readyz': {
      const state = await endpoints.readiness();
      send(response, state.ready ? 200 : 503, 'application/json', state);
      return;
    }
    default:
      send(response, 404, 'application/json', { error: 'not found', paths: ['/metrics', '/healthz', '/readyz'] });
  }
}

function send(response: ServerResponse, status: number, contentType: string, body: string | object, headers: Record<string, string> = {}): void {
  const text = typeof body === 'string' ? body : `${JSON.stringify(body)}\n`;
  response.writeHead(status, { 'content-type': contentType, 'content-length': Buffer.byteLength(text), ...headers });
  response.end(text);
}
