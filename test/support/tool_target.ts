import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** What the target saw of one call. */
export interface TargetRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: IncomingMessage['headers'];
  readonly body: string;
}

/** A test's answer to one call: a status and body, or a response held until the test releases it (then 200 with `body`, `released` unless given). */
export type TargetReply = { readonly status: number; readonly body: string } | { readonly hold: Promise<void>; readonly body?: string };

/**
 * The far side of the bot's HTTP tools: a real server on 127.0.0.1 that records every request
 * and answers with the next scripted reply (200 "ok" when none is scripted). `onRequest` lets a
 * test look at the world (the ledger, say) at the moment the tool's request arrives.
 */
export class ToolTarget {
  readonly requests: TargetRequest[] = [];
  readonly #replies: TargetReply[] = [];
  onRequest: ((request: TargetRequest) => void | Promise<void>) | undefined;
  readonly #server: Server;
  #port = 0;

  private constructor() {
    this.#server = createServer((req, res) => void this.#handle(req, res));
  }

  static async start(): Promise<ToolTarget> {
    const target = new ToolTarget();
    await new Promise<void>((resolve) => target.#server.listen(0, '127.0.0.1', resolve));
    target.#port = (target.#server.address() as AddressInfo).port;
    return target;
  }

  get url(): string {
    return `http://127.0.0.1:${this.#port}`;
  }

  reply(...replies: TargetReply[]): this {
    this.#replies.push(...replies);
    return this;
  }

  async close(): Promise<void> {
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const request = { method: req.method ?? '', path: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') };
    this.requests.push(request);
    await this.onRequest?.(request);
    const reply = this.#replies.shift() ?? { status: 200, body: 'ok' };
    if ('hold' in reply) {
      await reply.hold;
      if (!res.destroyed) res.end(reply.body ?? 'released');
      return;
    }
    res.writeHead(reply.status, { 'content-type': 'text/plain' });
    res.end(reply.body);
  }
}
