import { z } from 'zod';
import { optionalSecret } from '../../config/schema_parts.js';

/** The path of OTLP/HTTP's traces, added to an endpoint given without one (`http://collector:4318`). */
const TRACES_PATH = '/v1/traces';

/** The `telemetry` section (DESIGN §10.3). */
export const telemetrySection = z
  .strictObject({
    otlp_endpoint: optionalSecret
      .superRefine((endpoint, context) => {
        if (endpoint === undefined) return;
        const url = URL.canParse(endpoint) ? new URL(endpoint) : undefined;
        if (url === undefined || (url.protocol !== 'http:' && url.protocol !== 'https:')) context.addIssue({ code: 'custom', message: `${endpoint} is not an http:// or https:// URL` });
      })
      .describe(
        'Where to send traces over OTLP/HTTP (protobuf), e.g. `http://127.0.0.1:4318/v1/traces`; an endpoint without a path gets `/v1/traces`. ' +
          'Absent: nothing is traced, and no part of OpenTelemetry is loaded.',
      ),
    headers: z
      .record(z.string(), z.string())
      .default({})
      .describe('Headers sent with every export, such as a collector’s `Authorization`; credential values are redacted from the logs like every configured secret.'),
    service_name: z.string().min(1).default('holdfast').describe('The `service.name` of the traces: how a trace viewer names this bot.'),
    sample_ratio: z
      .number()
      .min(0)
      .max(1)
      .default(1)
      .describe('The share of turns traced, from 0 to 1; a resumed turn is traced when its earlier runs were, so a turn’s life is kept whole or not at all.'),
    include_content: z
      .boolean()
      .default(false)
      .describe('Whether spans carry message text, tool arguments and results (with every secret scrubbed out as the store scrubs them). Off: only names, ids, counts and states.'),
  })
  .describe('OpenTelemetry traces, one per run of a turn, off unless `otlp_endpoint` is set.');

/** The validated section. */
export type TelemetrySettings = z.output<typeof telemetrySection>;

/** The URL spans are posted to: the endpoint as given, `/v1/traces` added when it has no path. */
export function tracesUrl(endpoint: string): string {
  const url = new URL(endpoint);
  if (url.pathname === '/' || url.pathname === '') url.pathname = TRACES_PATH;
  return url.href;
}
