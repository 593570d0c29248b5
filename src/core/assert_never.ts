/**
 * The default branch of an exhaustive switch: the compiler proves `value` cannot occur, and if
 * a value the types did not foresee arrives at run time anyway (from storage or a wire), it
 * fails loudly instead of falling through.
 */
export function assertNever(value: never): never {
  throw new Error(`unexpected value ${describe(value)}`);
}

function describe(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}
