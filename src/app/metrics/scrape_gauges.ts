import { Gauge, type Registry } from 'prom-client';
import type { ModelBreakerRegistry } from '../../recovery/breaker_registry.js';
import { EMPTY_CENSUS } from '../../turn_state/no_store.js';
import type { StoreCensus } from '../../turn_state/operator_store.js';

/** Where the gauges read what they show, at each scrape. */
export interface ScrapeSources {
  /** The store's counts; `undefined` when turns are not durable (every count is then zero). */
  readonly census: (() => Promise<StoreCensus>) | undefined;
  readonly breakers: ModelBreakerRegistry;
}

/**
 * Adds to `registry` the gauges computed when Prometheus scrapes: live turns by state, calls
 * awaiting an operator's verdict, replies not yet confirmed delivered (one store census per
 * scrape, shared by the three), and whether each model's capacity breaker is open.
 */
export function registerScrapeGauges(registry: Registry, sources: ScrapeSources): void {
  const census = sharedPerScrape(sources.census);
  new Gauge({
    name: 'holdfast_turns',
    help: 'Turns that are not finished, by state.',
    labelNames: ['state'] as const,
    registers: [registry],
    async collect() {
      const counts = await census();
      this.set({ state: 'active' }, counts.active);
      this.set({ state: 'suspended' }, counts.suspended);
      this.set({ state: 'awaiting_resolution' }, counts.awaitingResolution);
      this.set({ state: 'awaiting_approval' }, counts.awaitingApproval);
    },
  });
  new Gauge({
    name: 'holdfast_calls_awaiting_verdict',
    help: 'Tool calls whose outcome is uncertain and that wait for an operator’s verdict.',
    registers: [registry],
    async collect() {
      this.set((await census()).callsAwaitingVerdict);
    },
  });
  new Gauge({
    name: 'holdfast_replies_pending',
    help: 'Final replies stored and not yet confirmed delivered by the transport.',
    registers: [registry],
    async collect() {
      this.set((await census()).repliesPending);
    },
  });
  new Gauge({
    name: 'holdfast_breaker_open',
    help: 'Whether a model’s capacity breaker is open: 1 while open or half-open (until a probe succeeds), 0 when closed.',
    labelNames: ['provider', 'model'] as const,
    registers: [registry],
    collect() {
      this.reset();
      for (const { provider, model, snapshot } of sources.breakers.modelSnapshots()) this.set({ provider, model }, snapshot.state === 'closed' ? 0 : 1);
    },
  });
}

/** The census, read once for all the gauges that ask while one read is under way. */
function sharedPerScrape(read: (() => Promise<StoreCensus>) | undefined): () => Promise<StoreCensus> {
  if (read === undefined) return () => Promise.resolve(EMPTY_CENSUS);
  let reading: Promise<StoreCensus> | undefined;
  return () =>
    (reading ??= read().finally(() => {
      reading = undefined;
    }));
}
