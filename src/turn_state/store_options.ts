import type { TurnStateSettings } from './turn_state_settings.js';

/** The `turn_state` section in milliseconds. */
export interface TurnStoreTimings {
  readonly leaseTtlMs: number;
  readonly resumeTtlMs: number;
  readonly payloadRetentionMs: number;
  readonly ledgerRetentionMs: number;
  /** How long the daily usage totals are kept (DESIGN §10.1). */
  readonly usageRetentionMs: number;
}

const derived = new WeakMap<TurnStateSettings, TurnStoreTimings>();

/**
 * The policy numbers of a `turn_state` section — lease, resume window, retention — worked out
 * once per configuration: the store, the conversation and the engine all judge by these.
 */
export function turnStoreTimings(section: TurnStateSettings): TurnStoreTimings {
  const known = derived.get(section);
  if (known !== undefined) return known;
  const hour = 3_600_000;
  const timings = {
    leaseTtlMs: Math.round(section.lease_ttl_seconds * 1000),
    resumeTtlMs: Math.round(section.resume_ttl_hours * hour),
    payloadRetentionMs: Math.round(section.payload_retention_days * 24 * hour),
    ledgerRetentionMs: Math.round(section.ledger_retention_days * 24 * hour),
    usageRetentionMs: Math.round(section.usage_retention_days * 24 * hour),
  };
  derived.set(section, timings);
  return timings;
}
