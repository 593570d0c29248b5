import type { TurnStateSettings } from './turn_state_settings.js';

/** The `turn_state` section in milliseconds. */
export interface TurnStoreTimings {
  readonly leaseTtlMs: number;
  readonly resumeTtlMs: number;
  readonly payloadRetentionMs: number;
  readonly ledgerRetentionMs: number;
}

export function turnStoreTimings(section: TurnStateSettings): TurnStoreTimings {
  const hour = 3_600_000;
  return {
    leaseTtlMs: Math.round(section.lease_ttl_seconds * 1000),
    resumeTtlMs: Math.round(section.resume_ttl_hours * hour),
    payloadRetentionMs: Math.round(section.payload_retention_days * 24 * hour),
    ledgerRetentionMs: Math.round(section.ledger_retention_days * 24 * hour),
  };
}
