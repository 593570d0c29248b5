import { marked } from '../core/marked.js';

const CIRCUIT_OPEN_ERROR = marked<CircuitOpenError>('CircuitOpenError');

/**
 * A model's capacity breaker refused the call: it is open (cooling down) or half-open with its
 * one probe already out. Weather, not a fault: the recovery policy waits through it.
 */
export class CircuitOpenError extends Error {
  override readonly name = 'CircuitOpenError';

  constructor(
    readonly provider: string,
    readonly model: string,
    /** Monotonic time at which the breaker may admit a call again. */
    readonly retryAtMs: number,
    /** `open`: cooling down; `probe_in_flight`: half-open and another caller holds the probe. */
    readonly state: 'open' | 'probe_in_flight',
  ) {
    super(`${provider} ${model}: the capacity breaker is ${state === 'open' ? 'open' : 'half-open with a probe in flight'}`);
    CIRCUIT_OPEN_ERROR.mark(this);
  }
}

/** Recognises a {@link CircuitOpenError}, even from another copy of this module. */
export function isCircuitOpenError(error: unknown): error is CircuitOpenError {
  return CIRCUIT_OPEN_ERROR.is(error);
}
