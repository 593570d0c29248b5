/** What must be up for the bot to be ready: the durable store and the transport's connection. */
export const READINESS_PARTS = ['store', 'transport'] as const;
export type ReadinessPart = (typeof READINESS_PARTS)[number];

/** One check per part, asked at each `/readyz`. */
export type ReadinessChecks = Readonly<Record<ReadinessPart, () => boolean>>;

/** What `/readyz` answers: ready, or not ready naming each part that is not up. */
export type Readiness = { readonly ready: true } | { readonly ready: false; readonly not_ready: readonly ReadinessPart[] };

/** Asks every check, in the order of {@link READINESS_PARTS}. */
export function readiness(checks: ReadinessChecks): Readiness {
  const down = READINESS_PARTS.filter((part) => !checks[part]());
  return down.length === 0 ? { ready: true } : { ready: false, not_ready: down };
}
