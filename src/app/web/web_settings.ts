import { isIP } from 'node:net';
import { z } from 'zod';
import { optionalSecret } from '../../config/schema_parts.js';
import { listenAddressField } from '../http_listener.js';

/** Whether `host` names this machine alone: `localhost`, 127.0.0.0/8 or `::1`. */
export function isLoopback(host: string): boolean {
  if (host === 'localhost') return true;
  if (isIP(host) === 4) return host.startsWith('127.');
  return host === '::1';
}

/** The `web` section. */
export const webSection = z
  .strictObject({
    listen: listenAddressField(9470)
      .optional()
      .describe('Where the operators’ web console listens, as host:port, e.g. `127.0.0.1:9470`; port 0 takes any free port and the log says which. Absent: nothing listens.'),
    token: optionalSecret.describe(
      'The token an operator logs in with, usually `${HOLDFAST_WEB_TOKEN}`; at least 16 characters. Required unless the console listens on this machine alone (127.0.0.1, ::1, localhost).',
    ),
  })
  .superRefine((web, context) => {
    if (web.listen !== undefined && web.token === undefined && !isLoopback(web.listen.host))
      context.addIssue({ code: 'custom', path: ['token'], message: `the console would listen on ${web.listen.host}, beyond this machine: give it a token` });
    if (web.token !== undefined && web.token.length < 16) context.addIssue({ code: 'custom', path: ['token'], message: 'a token needs at least 16 characters' });
  })
  .describe('The operators’ web console: turns, their ledgers, verdicts and approvals in a browser, off unless `listen` is set.');

/** The validated section. */
export type WebSettings = z.output<typeof webSection>;
