import type { Instruction, Op } from './instructions.js';

/**
 * Runs `op` to its answer, carrying out each instruction synchronously with `carryOut`: the way
 * SQLite runs an operation inside the transaction its caller opened. An instruction that throws
 * is thrown into the operation, which may catch it (a unique violation becomes a refusal).
 */
export function runOp<T>(op: Op<T>, carryOut: (instruction: Instruction) => unknown): T {
  let step = op.next();
  while (!step.done) {
    let answer: { readonly value: unknown } | { readonly error: unknown };
    try {
      answer = { value: carryOut(step.value) };
    } catch (error) {
      answer = { error };
    }
    step = 'error' in answer ? op.throw(answer.error) : op.next(answer.value);
  }
  return step.value;
}

/** {@link runOp}, each instruction awaited: the way PostgreSQL runs an operation on its transaction's connection. */
export async function runOpAsync<T>(op: Op<T>, carryOut: (instruction: Instruction) => Promise<unknown>): Promise<T> {
  let step = op.next();
  while (!step.done) {
    const answer = await carryOut(step.value).then(
      (value) => ({ value }),
      (error: unknown) => ({ error }),
    );
    step = 'error' in answer ? op.throw(answer.error) : op.next(answer.value);
  }
  return step.value;
}
