/**
 * Promises that resolve once a condition over a fake's records holds: a fake calls `changed()`
 * after each record it adds, and a test awaits `when(...)` instead of sleeping.
 */
export class Conditions {
  readonly #waiters: { readonly ready: () => boolean; readonly resolve: () => void }[] = [];

  /** Resolves once `ready()` is true: at once if it already is, else at the `changed()` that makes it so. */
  when(ready: () => boolean): Promise<void> {
    if (ready()) return Promise.resolve();
    return new Promise((resolve) => this.#waiters.push({ ready, resolve }));
  }

  /** Re-checks every pending condition after the records changed. */
  changed(): void {
    for (const waiter of this.#waiters.filter((w) => w.ready())) {
      this.#waiters.splice(this.#waiters.indexOf(waiter), 1);
      waiter.resolve();
    }
  }
}
