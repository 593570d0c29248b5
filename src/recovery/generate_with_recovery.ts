import pRetry from 'p-retry';
import type { Clock } from '../core/clock.js';
import type { Random } from '../core/random.js';
import { isLLMError, isLLMErrorOfKind, type LLMError } from '../llm/errors.js';
import type { GenerateRequest, GenerateResponse, Provenance } from '../llm/protocol.js';
import { collectResponse, type LLMProvider, type StreamEvent } from '../llm/provider.js';
import type { ModelBreakerRegistry } from './breaker_registry.js';
import type { CircuitOpenError } from './circuit_open_error.js';
import { isRecoveryGiveUpError, RecoveryGiveUpError, type GiveUpReason } from './give_up_error.js';
import { whenAnyAdmits, type ModelRoute } from './model_route.js';
import { RouteCursor } from './route_cursor.js';
import { decideRetry, type WaitReason } from './retry_decision.js';
import type { RecoverySettings } from './settings.js';
import type { SubsystemGuard } from './subsystem_guard.js';
import { assertNever } from '../core/assert_never.js';

/** The long-lived parts every generation shares: time, jitter, the breakers and the health guard. */
export interface RecoveryRuntime {
  readonly clock: Clock;
  readonly random: Random;
  readonly breakers: ModelBreakerRegistry;
  readonly guard: SubsystemGuard;
  readonly settings: RecoverySettings;
  /** Told of every move of a generation from an overloaded model to the next one (DESIGN §5.4), for the metrics. */
  readonly onSwitch?: (from: LLMProvider, to: LLMProvider) => void;
}

/** What a generation reports as it goes, for logs and for the turn's durable state. */
export type RecoveryEvent =
  /** `probe`: the attempt goes as its half-open breaker's one probe (DESIGN §5.2). */
  | { readonly type: 'attempt_started'; readonly attempt: number; readonly remainingMs: number; readonly model: LLMProvider; readonly probe: boolean }
  /** Models of the route were refused by their breakers: ahead of the one an attempt goes to, or every one still to be asked in this round (soonest to admit first). */
  | { readonly type: 'refused'; readonly refusals: readonly CircuitOpenError[] }
  | { readonly type: 'attempt_failed'; readonly attempt: number; readonly error: LLMError | CircuitOpenError }
  | { readonly type: 'waiting'; readonly delayMs: number; readonly reason: WaitReason }
  /** The model in use was overloaded and the next one of the route admits a call: the generation goes on there at once. */
  | { readonly type: 'switched'; readonly from: LLMProvider; readonly to: LLMProvider; readonly error: LLMError }
  | { readonly type: 'succeeded'; readonly attempts: number; readonly elapsedMs: number; readonly provenance: Provenance }
  | { readonly type: 'gave_up'; readonly reason: GiveUpReason; readonly attempts: number; readonly elapsedMs: number; readonly lastError: unknown };

export interface RecoveryOptions {
  readonly runtime: RecoveryRuntime;
  /** Aborting stops the in-flight request (awaited) or the wait at once: the generation gives up `cancelled`. */
  readonly signal: AbortSignal;
  /** The budget instead of `generation_deadline_seconds`, e.g. what is left of a resumed turn's deadline; at least one attempt is made. */
  readonly budgetMs?: number;
  /** `false`: an open breaker gives up at once (`non_retryable`, with the CircuitOpenError) instead of being waited through. */
  readonly retryCircuitOpen?: boolean;
  /**
   * The tokens of the probe slots the caller claimed for this generation (a person's `resume`):
   * its first attempt on each of those models goes as that probe. The run gives back the slots it
   * did not use when it ends.
   */
  readonly probeTokens?: readonly string[];
  readonly onEvent?: (event: RecoveryEvent) => void;
  /** Each attempt's stream events. A retried attempt starts its text again after `attempt_started`. */
  readonly onStreamEvent?: (event: StreamEvent) => void;
}

/** A generation's response and the model of the route that wrote it. */
export interface RoutedResponse {
  readonly response: GenerateResponse;
  readonly model: LLMProvider;
}

/**
 * The only way to call a model (DESIGN §5.1): retries capacity and transport failures and waits
 * through an open breaker inside a deadline of monotonic time, and gives up with a
 * {@link RecoveryGiveUpError} that says why. The deadline bounds waiting between attempts, never
 * a stream in progress. A failed logical generation counts once toward its model's breaker.
 * Unclassified errors escape at once: they are bugs, not weather.
 */
export async function generateWithRecovery(provider: LLMProvider, request: GenerateRequest, options: RecoveryOptions): Promise<GenerateResponse> {
  return (await generateOnRoute([provider], request, options)).response;
}

/**
 * {@link generateWithRecovery} over a route of models (DESIGN §5.4): each attempt goes to the
 * first model whose breaker admits a call; when the model in use is overloaded the generation
 * moves on to the next admitted one at once, and only when none admits does it wait as the one
 * policy says, inside the same deadline. Other failures never move it: they are retried or given
 * up on as they would be with one model. After a wait every model is asked again from the first.
 */
export async function generateOnRoute(route: ModelRoute, request: GenerateRequest, options: RecoveryOptions): Promise<RoutedResponse> {
  return new RecoveryRun(route, request, options).run();
}

class RecoveryRun {
  readonly #startedAt: number;
  readonly #deadline: number;
  readonly #cursor: RouteCursor;
  #attempts = 0;
  /** Rounds of the route so far whose attempts failed (one attempt each with a single model): the backoff's exponent. */
  #rounds = 1;
  #lastError: unknown;
  #heldProbes: readonly string[];

  constructor(
    route: ModelRoute,
    private readonly request: GenerateRequest,
    private readonly options: RecoveryOptions,
  ) {
    this.#startedAt = options.runtime.clock.monotonicNow();
    this.#deadline = this.#startedAt + (options.budgetMs ?? options.runtime.settings.deadlineMs);
    this.#heldProbes = options.probeTokens ?? [];
    this.#cursor = new RouteCursor(route, options.runtime.breakers);
  }

  async run(): Promise<RoutedResponse> {
    try {
      // p-retry runs the attempt loop; every wait happens in onFailedAttempt on the Clock port
      // (minTimeout 0 keeps p-retry's own timers out), because p-retry's timers cannot be driven
      // by a manual clock, know no retry-after floor and count attempts rather than a deadline.
      const response = await pRetry(() => this.#attempt(), {
        retries: Number.POSITIVE_INFINITY,
        minTimeout: 0,
        onFailedAttempt: ({ error }) => this.#afterFailure(error),
      });
      this.#emit({ type: 'succeeded', attempts: this.#attempts, elapsedMs: this.#elapsed(), provenance: response.provenance });
      return { response, model: this.#cursor.current };
    } catch (error) {
      throw this.#final(error);
    } finally {
      this.#cursor.giveBack(this.#heldProbes);
    }
  }

  async #attempt(): Promise<GenerateResponse> {
    const { runtime, signal } = this.options;
    const choice = this.#cursor.choose(this.#heldProbes);
    if (choice.kind === 'refused') {
      for (const refusal of choice.refusals) runtime.guard.recordFailure(`llm:${refusal.provider}`, refusal);
      this.#emit({ type: 'refused', refusals: choice.refusals });
      throw choice.refusals[0];
    }
    const { model, breaker, probe, passed } = choice.chosen;
    if (passed.length > 0) this.#emit({ type: 'refused', refusals: passed });
    this.#heldProbes = this.#heldProbes.filter((token) => token !== probe);
    this.#attempts += 1;
    this.#emit({ type: 'attempt_started', attempt: this.#attempts, remainingMs: this.#remaining(), model, probe: probe !== undefined });
    try {
      const response = await collectResponse(model.stream(this.request, { signal }), this.options.onStreamEvent);
      breaker.recordSuccess(probe);
      runtime.guard.notifyGenerationSuccess(response.provenance);
      return response;
    } catch (error) {
      if (probe !== undefined) {
        if (isLLMErrorOfKind(error, 'capacity')) breaker.recordProbeFailure(probe);
        else breaker.abandonProbe(probe);
      }
      if (isLLMError(error)) {
        runtime.guard.recordFailure(`llm:${model.provider}`, error);
        this.#emit({ type: 'attempt_failed', attempt: this.#attempts, error });
      }
      throw error;
    }
  }

  /** Decides after a failure and waits; throws to stop (a give-up, or an unclassified error as it is). */
  async #afterFailure(error: unknown): Promise<void> {
    const { runtime, signal } = this.options;
    if (signal.aborted) throw this.#giveUp('cancelled', isLLMError(error) ? error : this.#lastError);
    if (isLLMErrorOfKind(error, 'capacity')) {
      const from = this.#cursor.current;
      const to = this.#cursor.overloaded(this.#heldProbes);
      if (to !== undefined) {
        this.#lastError = error;
        this.options.runtime.onSwitch?.(from, to);
        this.#emit({ type: 'switched', from, to, error });
        return;
      }
    }
    const decision = decideRetry(error, {
      attempts: this.#rounds,
      remainingMs: this.#remaining(),
      nowMs: runtime.clock.monotonicNow(),
      retryCircuitOpen: this.options.retryCircuitOpen ?? true,
      settings: runtime.settings,
      random: runtime.random,
    });
    switch (decision.kind) {
      case 'escape':
        throw error;
      case 'give_up':
        throw this.#giveUp(decision.reason, error);
      case 'retry':
        this.#lastError = error;
        this.#emit({ type: 'waiting', delayMs: decision.delayMs, reason: decision.reason });
        try {
          // An open breaker is waited through until it admits again, which may be long before the time it named.
          if (decision.reason === 'circuit_open') await whenAnyAdmits(this.#cursor.waitingFor(), signal, decision.delayMs);
          else await runtime.clock.sleep(decision.delayMs, signal);
        } catch {
          throw this.#giveUp('cancelled', error);
        }
        this.#cursor.newRound();
        if (decision.reason !== 'circuit_open') this.#rounds += 1;
        return;
      default:
        return assertNever(decision);
    }
  }

  /** The error the generation ends with; a failed logical generation counts once toward the breaker of each model it found overloaded. */
  #final(error: unknown): unknown {
    if (!isRecoveryGiveUpError(error)) return error;
    if (error.reason !== 'cancelled') this.#cursor.gaveUp();
    this.#emit({ type: 'gave_up', reason: error.reason, attempts: error.attempts, elapsedMs: error.elapsedMs, lastError: error.lastError });
    return error;
  }

  #giveUp(reason: GiveUpReason, lastError: unknown): RecoveryGiveUpError {
    return new RecoveryGiveUpError(reason, lastError, this.#attempts, this.#elapsed());
  }

  #remaining(): number {
    return this.#deadline - this.options.runtime.clock.monotonicNow();
  }

  #elapsed(): number {
    return this.options.runtime.clock.monotonicNow() - this.#startedAt;
  }

  #emit(event: RecoveryEvent): void {
    this.options.onEvent?.(event);
  }
}
