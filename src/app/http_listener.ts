import type { Server } from 'node:http';
import { isIPv6, type AddressInfo } from 'node:net';
import { z } from 'zod';
import { marked } from '../core/marked.js';

/** Where one of the program's HTTP servers listens: a host name or IP address, and a port (0: any free one). */
export interface ListenAddress {
  readonly host: string;
  readonly port: number;
}

/** The configuration keys that name a listen address, each for a server of its own. */
export type ListenKey = 'metrics.listen' | 'web.listen';

/** A server listening at its address. */
export interface HttpListener {
  /** Where it listens, e.g. `http://127.0.0.1:9464`: the actual port when port 0 was asked for. */
  readonly url: string;
  /** Stops listening and drops open connections. */
  close(): Promise<void>;
}

const HOST_PORT = /^(?:\[([^\]]+)\]|([^\s:[\]/]+)):(\d{1,5})$/;

/** The address as the configuration writes it: `host:port`, `[v6 address]:port`. */
export function formatListenAddress(address: ListenAddress): string {
  return isIPv6(address.host) ? `[${address.host}]:${address.port}` : `${address.host}:${address.port}`;
}

/** `host:port` (`[v6 address]:port` for IPv6) as an address, or `undefined` when it is not one. */
export function parseListenAddress(text: string): ListenAddress | undefined {
  const match = HOST_PORT.exec(text);
  if (match === null) return undefined;
  const [, v6, host, port] = match;
  if (v6 !== undefined && !isIPv6(v6)) return undefined;
  const number = Number(port);
  if (number > 65_535) return undefined;
  return { host: v6 ?? host ?? '', port: number };
}

/** The configuration field of a listen address, written `host:port`; a problem gives `examplePort` as the example. */
export function listenAddressField(examplePort: number) {
  return z.string().transform((text, context): ListenAddress => {
    const address = parseListenAddress(text);
    if (address === undefined) {
      context.addIssue({ code: 'custom', message: `expected host:port, e.g. 127.0.0.1:${examplePort} ([::1]:${examplePort} for IPv6; port 0 takes any free port)` });
      return z.NEVER;
    }
    return address;
  });
}

const LISTEN = marked<ListenError>('ListenError');

/** A server could not listen at the address its configuration key names (the port is taken, the address is not this host's). */
export class ListenError extends Error {
  override readonly name = 'ListenError';
  constructor(
    readonly key: ListenKey,
    /** The address as the configuration writes it. */
    readonly address: string,
    /** The system's error code, e.g. `EADDRINUSE`, when it gave one. */
    readonly code: string | undefined,
    options: ErrorOptions,
  ) {
    super(`${key} ${address}: cannot listen there: ${options.cause instanceof Error ? options.cause.message : String(options.cause)}`, options);
    LISTEN.mark(this);
  }
}

export const isListenError = LISTEN.is;

/**
 * Makes `server` listen at `address`, which the configuration key `key` names.
 * @throws {ListenError} when it cannot listen there.
 */
export async function listenAt(server: Server, address: ListenAddress, key: ListenKey): Promise<HttpListener> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) => reject(new ListenError(key, formatListenAddress(address), error.code, { cause: error })));
    server.listen(address.port, address.host, () => resolve());
  });
  const bound = server.address() as AddressInfo;
  return {
    url: bound.family === 'IPv6' ? `http://[${bound.address}]:${bound.port}` : `http://${bound.address}:${bound.port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
