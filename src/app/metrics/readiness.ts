import type { Clock } from '../../core/clock.js';
import type { TurnStore } from '../../turn_state/turn_store.js';

/** What must be up for the bot to be ready: the durable store and the transport's connection. */
export const READINESS_PARTS = ['store', 'transport'] as const;
export type ReadinessPart = (typeof READINESS_PARTS)[number];

/** One check per part, asked at each `/readyz`. */
export type ReadinessChecks = Readonly<Record<ReadinessPart, () => boolean | Promise<boolean>>>;

/** What `/readyz` answers: ready, or not ready naming each part that is not up. */
export type Readiness = { readonly ready: true } | { readonly ready: false; readonly not_ready: readonly ReadinessPart[] };

/** Asks every check at once, and answers in the order of {@link READINESS_PARTS}. */
export async function readiness(checks: ReadinessChecks): Promise<Readiness> {
  const up = await Promise.all(READINESS_PARTS.map(async (part) => checks[part]()));
  const down = READINESS_PARTS.filter((_, index) => !up[index]);
  return down.length === 0 ? { ready: true } : { ready: false, not_ready: down };
}

/** How long the store may take to prove it takes a write before `/readyz` calls it not ready. */
export const STORE_PROBE_DEADLINE_MS = 2_000;

/**
 * The store's check: whether it takes a small durable write now (`TurnStore.probe`) within
 * {@link STORE_PROBE_DEADLINE_MS}, so `/readyz` turns not ready at the first probe after the store
 * stops working (its file locked by another writer or failing, its database gone) and ready again
 * once it works; never ready without a durable store. Probes do not pile up on a store that hangs:
 * one asked while another runs gets that one's answer.
 */
export function storeCheck(store: TurnStore, clock: Clock): () => Promise<boolean> {
  let running: Promise<boolean> | undefined;
  const probe = async (durable: TurnStore): Promise<boolean> => {
    const deadline = new AbortController();
    const late = clock.sleep(STORE_PROBE_DEADLINE_MS, deadline.signal).then(
      () => false,
      () => false,
    );
    try {
      return await Promise.race([
        durable.probe().then(
          () => true,
          () => false,
        ),
        late,
      ]);
    } finally {
      deadline.abort();
    }
  };
  return () => {
    running ??= probe(store).finally(() => (running = undefined));
    return running;
  };
}
