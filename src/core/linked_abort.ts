import { RELEASED } from './released.js';

/**
 * A signal that aborts when `parent` does, with `parent`'s reason, or when its holder calls
 * {@link abort}: what `AbortSignal.any([parent, own])` gives, without the composite signal's
 * weak references on `parent` and their cleanup. {@link release} stops following `parent`; call
 * it once nothing waits on the signal any more.
 */
export class LinkedAbort {
  readonly #controller = new AbortController();
  readonly #parent: AbortSignal;
  readonly #follow = (): void => this.#controller.abort(this.#parent.reason);

  constructor(parent: AbortSignal) {
    this.#parent = parent;
    if (parent.aborted) this.#follow();
    else parent.addEventListener('abort', this.#follow, { once: true });
  }

  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  /** Aborts the signal, ending the waits on it; the reason is {@link RELEASED}, since nothing went wrong. */
  abort(): void {
    this.#controller.abort(RELEASED);
  }

  /** Stops following `parent` and ends every wait still on the signal. */
  release(): void {
    this.#parent.removeEventListener('abort', this.#follow);
    this.#controller.abort(RELEASED);
  }
}
