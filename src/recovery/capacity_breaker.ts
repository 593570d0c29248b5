import { abortReason, type Clock } from '../core/clock.js';
import type { IdFactory } from '../core/ids.js';
import { LinkedAbort } from '../core/linked_abort.js';
import { CircuitOpenError } from './circuit_open_error.js';
import type { BreakerSettings } from './settings.js';
import { assertNever } from '../core/assert_never.js';

/** Where a breaker stands; each state carries what it needs. */
type BreakerState =
  | { readonly kind: 'closed'; readonly failedGenerations: number }
  | { readonly kind: 'open'; readonly until: number }
  | { readonly kind: 'half_open'; readonly probe: { readonly token: string; readonly expiresAt: number } | undefined };

export type BreakerStateKind = BreakerState['kind'];

/** What a caller may do: go ahead, go ahead as the one probe (holding its token), or wait. */
export type Admission = { readonly kind: 'admitted' } | { readonly kind: 'probe'; readonly token: string } | { readonly kind: 'rejected'; readonly error: CircuitOpenError };

/** A breaker's state for status output and for the resume manager. */
export interface BreakerSnapshot {
  readonly key: string;
  readonly state: BreakerStateKind;
  /** The cooldown the next opening will use. */
  readonly cooldownMs: number;
  /** Monotonic time from which a probe is allowed; `undefined` while closed. */
  readonly nextProbeAtMs: number | undefined;
  readonly probeInFlight: boolean;
  readonly failedGenerations: number;
}

/**
 * The capacity breaker of one model (DESIGN §5.2). Failed logical generations are counted (once
 * each, however many attempts they made); at the threshold it opens for a cooldown. Then exactly
 * one probe is admitted, identified by a token: only that token can close the breaker (success),
 * re-open it with double the cooldown up to the cap (capacity failure) or give the slot back
 * (abandon); a probe that never reports back loses its slot after the probe timeout. Anything a
 * caller without the token reports changes nothing. Callers waiting for it to admit them are
 * woken by every change, not only by the times it names.
 */
export class ModelCapacityBreaker {
  readonly key: string;
  #state: BreakerState = { kind: 'closed', failedGenerations: 0 };
  #cooldownMs: number;
  /** Wakes the callers of {@link whenAdmits}, and calls the listeners of {@link onChange}, at each transition. */
  readonly #changed = new Set<() => void>();

  constructor(
    readonly provider: string,
    readonly model: string,
    private readonly settings: BreakerSettings,
    private readonly clock: Clock,
    private readonly ids: IdFactory,
    private readonly onTransition: (snapshot: BreakerSnapshot) => void = () => {},
  ) {
    this.key = `${provider}:${model}`;
    this.#cooldownMs = settings.cooldownBaseMs;
  }

  /** Asks to call the model now. A caller that already holds the probe's token (see {@link claimProbe}) goes as that probe. */
  admit(heldProbe?: string): Admission {
    const state = this.#current();
    if (heldProbe !== undefined && this.#holdsProbe(state, heldProbe)) return { kind: 'probe', token: heldProbe };
    switch (state.kind) {
      case 'closed':
        return { kind: 'admitted' };
      case 'open':
        return { kind: 'rejected', error: new CircuitOpenError(this.provider, this.model, state.until, 'open') };
      case 'half_open': {
        if (state.probe !== undefined) {
          return { kind: 'rejected', error: new CircuitOpenError(this.provider, this.model, state.probe.expiresAt, 'probe_in_flight') };
        }
        const token = this.ids.newId();
        this.#state = { kind: 'half_open', probe: { token, expiresAt: this.clock.monotonicNow() + this.settings.probeTimeoutMs } };
        return { kind: 'probe', token };
      }
      default:
        return assertNever(state);
    }
  }

  /**
   * A person asks to try now (their `resume`): an open breaker gives them the probe slot without
   * waiting for its cooldown to end. Refused only while another probe is in flight.
   */
  claimProbe(): Admission {
    const state = this.#current();
    if (state.kind === 'open') this.#move({ kind: 'half_open', probe: undefined });
    return this.admit();
  }

  /**
   * Resolves once a call would be admitted — the breaker closed, or half-open with its probe
   * slot free — or after `maxMs` at the latest. It wakes at every transition (a probe that
   * closes the breaker or gives its slot back), at the end of a cooldown and at a probe's expiry.
   * Rejects when `signal` aborts.
   */
  async whenAdmits(signal: AbortSignal, maxMs = Number.POSITIVE_INFINITY): Promise<void> {
    const until = this.clock.monotonicNow() + maxMs;
    for (;;) {
      if (signal.aborted) throw abortReason(signal);
      const state = this.#current();
      const now = this.clock.monotonicNow();
      // `undefined` when a call would be admitted now: closed, or half-open with the probe slot free.
      const wakeAt = state.kind === 'open' ? state.until : state.kind === 'half_open' ? state.probe?.expiresAt : undefined;
      if (wakeAt === undefined || now >= until) return;
      await this.#changeOr(Math.min(wakeAt, until) - now, signal);
    }
  }

  /**
   * Calls `listener` at each transition from now on, until the returned function is called. A
   * cooldown's end is a transition only once something reads the breaker at or after it.
   */
  onChange(listener: () => void): () => void {
    const wake = (): void => listener();
    this.#changed.add(wake);
    return () => this.#changed.delete(wake);
  }

  /**
   * When a waiter would try next if nothing gets better: the end of the cooldown while open;
   * while a probe is in flight, when the next probe could go if that one failed now (at the
   * latest its expiry); `undefined` when a call would be admitted now.
   */
  nextTryAtMs(): number | undefined {
    const state = this.#current();
    if (state.kind === 'open') return state.until;
    if (state.kind === 'closed' || state.probe === undefined) return undefined;
    return Math.min(state.probe.expiresAt, this.clock.monotonicNow() + Math.min(this.settings.cooldownCapMs, this.#cooldownMs * 2));
  }

  /** A call succeeded. With the probe's token it closes the breaker and resets the cooldown. */
  recordSuccess(token: string | undefined): void {
    const state = this.#current();
    if (state.kind === 'closed') {
      if (state.failedGenerations > 0) this.#state = { kind: 'closed', failedGenerations: 0 };
    } else if (this.#holdsProbe(state, token)) {
      this.#cooldownMs = this.settings.cooldownBaseMs;
      this.#move({ kind: 'closed', failedGenerations: 0 });
    }
  }

  /** The probe found the model still overloaded: open again, with the cooldown doubled up to the cap. */
  recordProbeFailure(token: string): void {
    if (!this.#holdsProbe(this.#current(), token)) return;
    this.#cooldownMs = Math.min(this.settings.cooldownCapMs, this.#cooldownMs * 2);
    this.#open();
  }

  /** Whether `token` is the probe slot's, still held: its holder is let through by {@link admit}. */
  holdsProbe(token: string): boolean {
    return this.#holdsProbe(this.#current(), token);
  }

  /** The probe ended without a verdict (cancelled, or failed for another reason): free the slot. */
  abandonProbe(token: string): void {
    if (this.#holdsProbe(this.#current(), token)) this.#move({ kind: 'half_open', probe: undefined });
  }

  /** A logical generation failed for capacity. Counts only while closed. */
  recordGenerationFailure(): void {
    const state = this.#current();
    if (state.kind !== 'closed') return;
    const failedGenerations = state.failedGenerations + 1;
    if (failedGenerations >= this.settings.generationThreshold) this.#open();
    else this.#state = { kind: 'closed', failedGenerations };
  }

  snapshot(): BreakerSnapshot {
    const state = this.#current();
    return {
      key: this.key,
      state: state.kind,
      cooldownMs: this.#cooldownMs,
      nextProbeAtMs: state.kind === 'open' ? state.until : state.kind === 'half_open' ? (state.probe?.expiresAt ?? this.clock.monotonicNow()) : undefined,
      probeInFlight: state.kind === 'half_open' && state.probe !== undefined,
      failedGenerations: state.kind === 'closed' ? state.failedGenerations : 0,
    };
  }

  /** The state with time applied: a finished cooldown half-opens, an expired probe loses its slot. */
  #current(): BreakerState {
    const now = this.clock.monotonicNow();
    const state = this.#state;
    if (state.kind === 'open' && now >= state.until) this.#move({ kind: 'half_open', probe: undefined });
    else if (state.kind === 'half_open' && state.probe !== undefined && now >= state.probe.expiresAt) this.#move({ kind: 'half_open', probe: undefined });
    return this.#state;
  }

  #holdsProbe(state: BreakerState, token: string | undefined): boolean {
    return state.kind === 'half_open' && token !== undefined && state.probe?.token === token;
  }

  #open(): void {
    this.#move({ kind: 'open', until: this.clock.monotonicNow() + this.#cooldownMs });
  }

  #move(next: BreakerState): void {
    this.#state = next;
    this.onTransition(this.snapshot());
    for (const wake of [...this.#changed]) wake();
  }

  /** Waits `ms`, or less when the breaker changes first. Rejects only when `signal` aborts. */
  async #changeOr(ms: number, signal: AbortSignal): Promise<void> {
    const changed = new LinkedAbort(signal);
    const wake = (): void => changed.abort();
    this.#changed.add(wake);
    try {
      await this.clock.sleep(ms, changed.signal);
    } catch (error) {
      if (signal.aborted) throw error;
    } finally {
      this.#changed.delete(wake);
      changed.release();
    }
  }
}
