import type { LLMProvider } from '../llm/provider.js';
import type { ModelBreakerRegistry } from './breaker_registry.js';
import type { ModelCapacityBreaker } from './capacity_breaker.js';
import type { CircuitOpenError } from './circuit_open_error.js';
import type { ModelRoute } from './model_route.js';

/** The model a generation goes to next, the probe token it holds there if it is the probe, and the refusals of the models before it in the round. */
export interface ChosenModel {
  readonly model: LLMProvider;
  readonly breaker: ModelCapacityBreaker;
  readonly probe: string | undefined;
  readonly passed: readonly CircuitOpenError[];
}

/** What asking the route for a model came to: one to call, or every breaker's refusal (the one that reopens first leads). */
export type RouteChoice = { readonly kind: 'chosen'; readonly chosen: ChosenModel } | { readonly kind: 'refused'; readonly refusals: readonly [CircuitOpenError, ...CircuitOpenError[]] };

/**
 * Where one generation stands on its route (DESIGN §5.4). A round asks the models in order; a
 * model that fails for capacity is passed over for the rest of the round, so the generation
 * moves on to the next model at once. A round ends with a wait, after which every model is
 * asked again from the first. Each model's breaker is counted once per generation that gave up
 * on it: when the generation moved on from it, or when the generation gave up having found it
 * overloaded.
 */
export class RouteCursor {
  readonly #breakers: readonly ModelCapacityBreaker[];
  /** The models that failed for capacity in this round, by position. */
  readonly #passedOver = new Set<number>();
  /** The models found overloaded in this generation, and those whose breaker already counted it. */
  readonly #overloaded = new Set<number>();
  readonly #counted = new Set<number>();
  #current = 0;

  constructor(
    private readonly route: ModelRoute,
    registry: ModelBreakerRegistry,
  ) {
    this.#breakers = route.map((model) => registry.get(model.provider, model.model));
  }

  /** The model in use: the one chosen last. */
  get current(): LLMProvider {
    return this.route[this.#current] ?? this.route[0];
  }

  /**
   * The first model of this round, in order, whose breaker admits a call; a breaker whose probe
   * slot one of `heldProbes` holds lets its holder through.
   */
  choose(heldProbes: readonly string[]): RouteChoice {
    if (this.#passedOver.size === this.route.length) this.#passedOver.clear();
    const refusals: CircuitOpenError[] = [];
    for (const [index, breaker] of this.#breakers.entries()) {
      if (this.#passedOver.has(index)) continue;
      const admission = breaker.admit(heldProbes.find((token) => breaker.holdsProbe(token)));
      if (admission.kind === 'rejected') {
        refusals.push(admission.error);
        continue;
      }
      this.#current = index;
      return { kind: 'chosen', chosen: { model: this.current, breaker, probe: admission.kind === 'probe' ? admission.token : undefined, passed: refusals } };
    }
    refusals.sort((a, b) => a.retryAtMs - b.retryAtMs);
    const [first, ...rest] = refusals;
    // The round's own models failed earlier in it, so at least one breaker was asked and refused.
    if (first === undefined) throw new Error('a round of the route asked no model');
    return { kind: 'refused', refusals: [first, ...rest] };
  }

  /**
   * The model in use failed for capacity: it is passed over for the rest of the round. Returns
   * the next model whose breaker would admit a call now, or whose probe slot one of `heldProbes`
   * holds, counting the failed generation on the breaker of the one left; `undefined` when none
   * would, and the generation has to wait.
   */
  overloaded(heldProbes: readonly string[]): LLMProvider | undefined {
    this.#overloaded.add(this.#current);
    this.#passedOver.add(this.#current);
    const admits = (breaker: ModelCapacityBreaker): boolean => breaker.nextTryAtMs() === undefined || heldProbes.some((token) => breaker.holdsProbe(token));
    const next = this.#breakers.findIndex((breaker, index) => !this.#passedOver.has(index) && admits(breaker));
    if (next === -1) return undefined;
    this.#count(this.#current);
    return this.route[next];
  }

  /** The breakers a wait ends with: those of the models not passed over in this round (every model's, when all were). */
  waitingFor(): ModelCapacityBreaker[] {
    const waiting = this.#breakers.filter((_breaker, index) => !this.#passedOver.has(index));
    return waiting.length > 0 ? waiting : [...this.#breakers];
  }

  /** Frees the probe slots of `heldProbes` still held on this route's breakers: the generation is over. */
  giveBack(heldProbes: readonly string[]): void {
    for (const breaker of this.#breakers) for (const token of heldProbes) breaker.abandonProbe(token);
  }

  /** A wait ended the round: the next attempt asks every model again, from the first. */
  newRound(): void {
    this.#passedOver.clear();
  }

  /** The generation gave up: each model found overloaded counts it once on its breaker. */
  gaveUp(): void {
    for (const index of this.#overloaded) this.#count(index);
  }

  #count(index: number): void {
    if (this.#counted.has(index)) return;
    this.#counted.add(index);
    this.#breakers[index]?.recordGenerationFailure();
  }
}
