import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Conditions } from './conditions.js';

/** What the file server does at one path. */
export type FileRoute =
  /** A whole file: a status (200 by default), a content type and the bytes, with their Content-Length. */
  | { readonly kind: 'file'; readonly body: Buffer | string; readonly contentType?: string; readonly status?: number }
  /**
   * A body of `total` bytes written in chunks as fast as the client reads it, with or without an
   * honest Content-Length (`declare`), stopping early when the client goes away.
   */
  | { readonly kind: 'stream'; readonly total: number; readonly contentType?: string; readonly declare?: boolean }
  /** Accepts the request and never answers. */
  | { readonly kind: 'hold' };

/** What the server saw of one request. */
export interface FileRequest {
  readonly path: string;
  /** Bytes of body written before the response ended or the client closed it. */
  bytesSent: number;
  /** Set when the client closed the connection before the response finished. */
  closedByClient: boolean;
}

/** A real HTTP server on 127.0.0.1 that serves scripted files, as a CDN would serve attachments. */
export class FileServer {
  readonly requests: FileRequest[] = [];
  readonly #server: Server;
  readonly #routes = new Map<string, FileRoute>();
  readonly #conditions = new Conditions();
  #port = 0;

  private constructor() {
    this.#server = createServer((req, res) => this.#handle(req, res));
  }

  /** Starts a server on a random free port. */
  static async start(): Promise<FileServer> {
    const server = new FileServer();
    await new Promise<void>((resolve) => server.#server.listen(0, '127.0.0.1', resolve));
    server.#port = (server.#server.address() as AddressInfo).port;
    return server;
  }

  /** Serves `route` at `path` and returns its full URL. */
  serve(path: string, route: FileRoute): string {
    this.#routes.set(path, route);
    return `http://127.0.0.1:${this.#port}${path}`;
  }

  /** The requests that asked for `path`. */
  requestsFor(path: string): FileRequest[] {
    return this.requests.filter((request) => request.path === path);
  }

  /** Resolves once a request for `path` has arrived. */
  whenRequested(path: string): Promise<void> {
    return this.#conditions.when(() => this.requestsFor(path).length > 0);
  }

  /** Resolves once the client has closed a request for `path` before its response finished. */
  whenClosedByClient(path: string): Promise<void> {
    return this.#conditions.when(() => this.requestsFor(path).some((request) => request.closedByClient));
  }

  async close(): Promise<void> {
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  #handle(req: IncomingMessage, res: ServerResponse): void {
    const recorded: FileRequest = { path: req.url ?? '', bytesSent: 0, closedByClient: false };
    this.requests.push(recorded);
    res.on('close', () => {
      if (!res.writableFinished) recorded.closedByClient = true;
      this.#conditions.changed();
    });
    this.#conditions.changed();
    const route = this.#routes.get(recorded.path) ?? { kind: 'file', status: 404, body: 'not found', contentType: 'text/plain' };
    switch (route.kind) {
      case 'file': {
        const body = Buffer.from(route.body);
        res.writeHead(route.status ?? 200, { 'content-type': route.contentType ?? 'application/octet-stream', 'content-length': body.length });
        recorded.bytesSent = body.length;
        res.end(body);
        return;
      }
      case 'stream':
        res.writeHead(200, { 'content-type': route.contentType ?? 'application/octet-stream', ...(route.declare === true ? { 'content-length': route.total } : {}) });
        writeStream(res, recorded, route.total);
        return;
      case 'hold':
        return;
      default: {
        const unreachable: never = route;
        throw new Error(`unknown route ${JSON.stringify(unreachable)}`);
      }
    }
  }
}

/** Writes `total` bytes of `x` in 64 KiB chunks, waiting for the client whenever its buffers are full. */
function writeStream(res: ServerResponse, recorded: FileRequest, total: number): void {
  const chunk = Buffer.alloc(64 * 1024, 'x');
  const pump = (): void => {
    while (!res.destroyed && recorded.bytesSent < total) {
      const piece = chunk.subarray(0, Math.min(chunk.length, total - recorded.bytesSent));
      recorded.bytesSent += piece.length;
      if (!res.write(piece)) return void res.once('drain', pump);
    }
    if (!res.destroyed) res.end();
  };
  pump();
}
