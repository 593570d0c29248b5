import { samplesOf } from '../../test/support/prometheus_text.js';

/** What one scrape of the bot's `/metrics` said, at `at` (performance.now(), ms). */
export interface Scrape {
  readonly at: number;
  /** `nodejs_eventloop_lag_p99_seconds` in ms: prom-client resets its histogram at each scrape, so this covers the time since the last one. */
  readonly eventLoopP99Ms: number | undefined;
  readonly rssBytes: number | undefined;
  /** `nodejs_heap_size_used_bytes`: the JS heap in use, garbage included until the next collection. */
  readonly heapUsedBytes: number | undefined;
  /** `nodejs_heap_size_total_bytes`: the JS heap V8 holds from the system, live or not. */
  readonly heapTotalBytes: number | undefined;
  /** `nodejs_external_memory_bytes`: memory outside the JS heap that JS objects keep (buffers, native handles). */
  readonly externalBytes: number | undefined;
  /** `holdfast_store_write_seconds_count`: durable writes (commits) so far. */
  readonly storeWrites: number | undefined;
  /** `process_cpu_seconds_total`: the bot's CPU time so far, user and system. */
  readonly cpuSeconds: number | undefined;
}

function valueOf(text: string, name: string): number | undefined {
  return samplesOf(text).find((sample) => sample.name === name)?.value;
}

/** Scrapes the bot's metrics every `intervalMs` until stopped. */
export class MetricsScraper {
  readonly scrapes: Scrape[] = [];
  #timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly url: string,
    private readonly intervalMs: number,
  ) {}

  /** One scrape now, recorded; `undefined` when the bot did not answer. */
  async scrape(): Promise<Scrape | undefined> {
    try {
      const response = await fetch(this.url, { signal: AbortSignal.timeout(this.intervalMs * 5) });
      const text = await response.text();
      const lag = valueOf(text, 'nodejs_eventloop_lag_p99_seconds');
      const scrape: Scrape = {
        at: performance.now(),
        eventLoopP99Ms: lag === undefined ? undefined : lag * 1000,
        rssBytes: valueOf(text, 'process_resident_memory_bytes'),
        heapUsedBytes: valueOf(text, 'nodejs_heap_size_used_bytes'),
        heapTotalBytes: valueOf(text, 'nodejs_heap_size_total_bytes'),
        externalBytes: valueOf(text, 'nodejs_external_memory_bytes'),
        storeWrites: valueOf(text, 'holdfast_store_write_seconds_count'),
        cpuSeconds: valueOf(text, 'process_cpu_seconds_total'),
      };
      this.scrapes.push(scrape);
      return scrape;
    } catch {
      return undefined;
    }
  }

  /** Scrapes every interval from now on, one scrape at a time. */
  start(): void {
    const next = (): void => {
      this.#timer = setTimeout(() => void this.scrape().finally(() => this.#timer !== undefined && next()), this.intervalMs);
    };
    next();
  }

  stop(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  /** The scrapes taken in [from, to]. */
  within(from: number, to: number): Scrape[] {
    return this.scrapes.filter((scrape) => scrape.at >= from && scrape.at <= to);
  }

  /** The last scrape at or before `at`, else the first one. */
  at(at: number): Scrape | undefined {
    return this.scrapes.findLast((scrape) => scrape.at <= at) ?? this.scrapes[0];
  }
}
