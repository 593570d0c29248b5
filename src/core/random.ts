/**
 * The source of randomness for policy (backoff jitter), so that tests can fix it (DESIGN §3).
 */
export interface Random {
  /** A number in [0, 1). */
  next(): number;
}

/** `Math.random()`. */
export class SystemRandom implements Random {
  next(): number {
    return Math.random();
  }
}
