import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Registry } from 'prom-client';
import { marked } from '../../core/marked.js';
import { formatListenAddress, type ListenAddress } from './metrics_settings.js';
import type { Readiness } from './readiness.js';

/** What the server answers from. */
export interface MetricsEndpoints {
  readonly registry: Registry;
  readonly readiness: () => Promise<Readiness>;
}

/** A listening metrics server. */
export interface MetricsServer {
  /** Where it listens, e.g. `http://127.0.0.1:9464`: the actual port when port 0 was asked for. */
  readonly url: string;
  /** Stops listening and drops open connections. */
  close(): Promise<void>;
}

const METRICS_LISTEN = marked<MetricsListenError>('MetricsListenError');

/** The metrics server could not listen at `metrics.listen` (the port is taken, the address is not this host's). */
export class MetricsListenError extends Error {
  override readonly name = 'MetricsListenError';
  constructor(
    readonly address: string,
    /** The system's error code, e.g. `EADDRINUSE`, when it gave one. */
    readonly code: string | undefined,
    options: ErrorOptions,
  ) {
    super(`metrics.listen ${address}: cannot listen there: ${options.cause instanceof Error ? options.cause.message : String(options.cause)}`, options);
    METRICS_LISTEN.mark(this);
  }
}

export const isMetricsListenError = METRICS_LISTEN.is;

/**
 * Serves `/metrics` (Prometheus text format), `/healthz` (200 while the process runs) and
 * `/readyz` (200 `{"ready":true}`, or 503 `{"ready":false,"not_ready":[…]}`) at `address`, with
 * node:http; any other path is 404.
 * @throws {MetricsListenError} when it cannot listen there.
 */
export async function startMetricsServer(address: ListenAddress, endpoints: MetricsEndpoints): Promise<MetricsServer> {
  const server = createServer((request, response) => void answer(request, response, endpoints));
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) => reject(new MetricsListenError(formatListenAddress(address), error.code, { cause: error })));
    server.listen(address.port, address.host, () => resolve());
  });
  return {
    url: urlOf(server.address() as AddressInfo),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function urlOf(bound: AddressInfo): string {
  return bound.family === 'IPv6' ? `http://[${bound.address}]:${bound.port}` : `http://${bound.address}:${bound.port}`;
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
