import { z } from 'zod';
import { listenAddressField } from '../http_listener.js';

/** The `metrics` section. */
export const metricsSection = z
  .strictObject({
    listen: listenAddressField(9464)
      .optional()
      .describe(
        'Where to serve Prometheus metrics (`/metrics`) and the health checks (`/healthz`, `/readyz`), as host:port, ' +
          'e.g. `127.0.0.1:9464`; port 0 takes any free port and the log says which. Absent: no metrics server.',
      ),
  })
  .describe('Metrics and health endpoints for monitoring, off unless `listen` is set.');

/** The validated section. */
export type MetricsSettings = z.output<typeof metricsSection>;
