import type { Clock } from '../../core/clock.js';
import type { Logger } from '../../core/logger.js';
import type { Transport } from '../../conversation/transport.js';
import type { BotServices, ServiceInstruments } from '../bot_services.js';
import { HoldfastMetrics } from './holdfast_metrics.js';
import { meteredProvider } from './metered_provider.js';
import { meteredTurnStore } from './metered_turn_store.js';
import { meteredUsageStore } from './metered_usage_store.js';
import type { HttpListener, ListenAddress } from '../http_listener.js';
import { startMetricsServer } from './metrics_server.js';
import { readiness, storeCheck } from './readiness.js';
import { registerScrapeGauges } from './scrape_gauges.js';

/**
 * The metrics of one bot process: made before its services open, so that the turn store and the
 * model are measured from their first use, and served once the transport exists.
 */
export class BotMetrics {
  readonly #metrics = new HoldfastMetrics();

  private constructor(
    private readonly address: ListenAddress,
    private readonly clock: Clock,
  ) {}

  /** The metrics `metrics.listen` asks for, served at `address` once {@link serve} is called. */
  static at(address: ListenAddress, clock: Clock): BotMetrics {
    return new BotMetrics(address, clock);
  }

  /** The wrappers that measure the turn store, the usage and the models, and count moves to a fallback model, for `openBotServices`. */
  get instruments(): ServiceInstruments {
    return {
      turnStore: (store) => meteredTurnStore(store, this.#metrics, this.clock),
      usageStore: (usage) => meteredUsageStore(usage, this.#metrics, this.clock),
      provider: (provider) => meteredProvider(provider, this.#metrics.modelAttemptsTotal),
      modelSwitched: (from, to) => this.#metrics.fallbacksTotal.inc({ from: from.model, to: to.model }),
    };
  }

  /**
   * Serves the metrics of `services` and the readiness of the store and `transport`, and says
   * where in one INFO line. The configured models' breakers show (closed) from the start.
   * @throws {ListenError} when it cannot listen at the configured address.
   */
  async serve(services: BotServices, transport: Transport, logger: Logger): Promise<HttpListener> {
    if (services.provider !== undefined) for (const model of [services.provider, ...services.fallbacks]) services.recovery.breakers.get(model.provider, model.model);
    const { operator } = services;
    registerScrapeGauges(this.#metrics.registry, { census: () => operator.census(), breakers: services.recovery.breakers });
    const store = storeCheck(services.store, this.clock);
    const server = await startMetricsServer(this.address, {
      registry: this.#metrics.registry,
      readiness: () => readiness({ store, transport: () => transport.connected() }),
    });
    logger.info({ component: 'metrics', url: server.url }, `metrics at ${server.url}/metrics, health at /healthz and /readyz`);
    return server;
  }
}
