/**
 * The reason a signal is aborted with when its owner is done with it and nothing went wrong: the
 * waits on it end and what it covered (a request, a timer) is let go. Its name is `AbortError`,
 * so anything that meets it takes it for the cancellation it is.
 */
class Released extends Error {
  override readonly name = 'AbortError';

  constructor() {
    super('released: its owner is done with it');
  }
}

/**
 * The one {@link Released} every such abort shares: a bare `abort()` makes a new `DOMException`,
 * stack trace and all, on each call, and nobody reads this reason's stack.
 */
export const RELEASED: Error = new Released();

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
