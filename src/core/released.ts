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
