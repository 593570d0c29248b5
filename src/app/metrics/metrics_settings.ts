import { isIPv6 } from 'node:net';
import { z } from 'zod';

/** Where the metrics server listens: a host name or IP address, and a port (0: any free one). */
export interface ListenAddress {
  readonly host: string;
  readonly port: number;
}

const HOST_PORT = /^(?:\[([^\]]+)\]|([^\s:[\]/]+)):(\d{1,5})$/;

/** The address as `metrics.listen` writes it: `host:port`, `[v6 address]:port`. */
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

/** The `metrics` section. */
export const metricsSection = z
  .strictObject({
    listen: z
      .string()
      .transform((text, context) => {
        const address = parseListenAddress(text);
        if (address === undefined) {
          context.addIssue({ code: 'custom', message: 'expected host:port, e.g. 127.0.0.1:9464 ([::1]:9464 for IPv6; port 0 takes any free port)' });
          return z.NEVER;
        }
        return address;
      })
      .optional()
      .describe(
        'Where to serve Prometheus metrics (`/metrics`) and the health checks (`/healthz`, `/readyz`), as host:port, ' +
          'e.g. `127.0.0.1:9464`; port 0 takes any free port and the log says which. Absent: no metrics server.',
      ),
  })
  .describe('Metrics and health endpoints for monitoring, off unless `listen` is set.');

/** The validated section. */
export type MetricsSettings = z.output<typeof metricsSection>;
