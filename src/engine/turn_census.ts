/**
 * The census of a turn's fields (DESIGN §7.5): every field of {@link ChatTurn} is persisted or
 * reconstructed, and the checkpoint payload is derived from it, so that a new field cannot go
 * unpersisted by accident.
 */
import type { ChatTurn } from './chat_turn.js';

/** How one field of a turn survives a resume. */
export type CensusEntry = { readonly kind: 'persisted'; readonly via?: 'transcript_log' } | { readonly kind: 'reconstructed'; readonly reason: string };

/** One entry for every field of {@link ChatTurn}, and none for a field it does not have. */
export type TurnFieldCensus = { readonly [K in keyof ChatTurn]-?: CensusEntry };

/**
 * The census (DESIGN §7.5). Persisted fields are restored verbatim: a resume never re-arms a
 * consumed guard or creates allowance. The transcript is persisted too, but as the turn's
 * append-only log rather than inside the checkpoint payload (§7.4).
 */
export const TURN_FIELD_CENSUS = {
  turnId: { kind: 'reconstructed', reason: "the store's row of the resumed turn carries its id" },
  identity: { kind: 'reconstructed', reason: "the store's row carries the identity; the original message is re-fetched from the transport" },
  requester: { kind: 'reconstructed', reason: "the user id comes from the store's row; the roles are re-read from the transport, as they are now" },
  tools: { kind: 'reconstructed', reason: 'tools are re-derived from the current catalog, permissions and approval rules: current policy wins' },
  signal: { kind: 'reconstructed', reason: 'a fresh signal: the resumed turn has its own /stop' },
  logger: { kind: 'reconstructed', reason: 'a new logger for the resumed generation' },
  trace: { kind: 'reconstructed', reason: "each run is a trace of its own, linked to the turn's earlier ones by the traceparents the store keeps" },
  systemPrompt: { kind: 'persisted' },
  transcript: { kind: 'persisted', via: 'transcript_log' },
  iteration: { kind: 'persisted' },
  toolCallsUsed: { kind: 'persisted' },
  budgets: { kind: 'persisted' },
  emptyTurnRetried: { kind: 'persisted' },
  continuationsUsed: { kind: 'persisted' },
  finalAnswerRequested: { kind: 'persisted' },
  repeatedCalls: { kind: 'persisted' },
  recoveryDeadlineAt: { kind: 'persisted' },
  model: { kind: 'persisted' },
} as const satisfies TurnFieldCensus;

type Census = typeof TURN_FIELD_CENSUS;

/** The fields the checkpoint payload carries: persisted, and not through the transcript log. */
export type PayloadFieldName = {
  [K in keyof Census]: Census[K] extends { readonly via: string } ? never : Census[K] extends { readonly kind: 'persisted' } ? K : never;
}[keyof Census];

/** The fields a resume rebuilds instead of restoring. */
export type ReconstructedFieldName = { [K in keyof Census]: Census[K] extends { readonly kind: 'reconstructed' } ? K : never }[keyof Census];

/** The values of the payload fields, as a checkpoint restores them. */
export type PersistedFields = { readonly [K in PayloadFieldName]: ChatTurn[K] };

/**
 * Payload fields added since the codec's version was set, with what their absence means: a
 * checkpoint written before a field existed lacks it, and is read as this value.
 */
export const LATER_PAYLOAD_FIELDS: { readonly [K in PayloadFieldName]?: PersistedFields[K] } = { model: null };

/** The version of the payload this codec writes and the only one it reads. */
export const CODEC_VERSION = 1;

/** What a checkpoint stores as its state: plain JSON. */
export interface CheckpointState {
  readonly codecVersion: typeof CODEC_VERSION;
  readonly fields: PersistedFields;
}

/** The payload field names, taken from the census so that a new persisted field cannot be left out. */
export const PAYLOAD_FIELDS: readonly PayloadFieldName[] = (Object.keys(TURN_FIELD_CENSUS) as (keyof Census)[]).filter((name): name is PayloadFieldName => {
  const entry: CensusEntry = TURN_FIELD_CENSUS[name];
  return entry.kind === 'persisted' && entry.via === undefined;
});
