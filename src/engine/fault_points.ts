import { marked } from '../core/marked.js';

/**
 * The moment a new turn is stored with its request, the durable points of a step (DESIGN §7.3),
 * the moments around a tool's effect, the moment a completed turn's reply is stored but not
 * yet handed to the transport, and the moment a person's approval of a call is recorded but the
 * turn not yet continued (DESIGN §9.2).
 */
export const FAULT_POINTS = [
  'after_admission',
  'after_deadline',
  'after_wi1',
  'after_wi2',
  'after_tool',
  'after_wi3',
  'after_wi4',
  'after_wi5',
  'after_final_reply',
  'after_completion',
  'after_approval',
] as const;
export type FaultPoint = (typeof FAULT_POINTS)[number];

/**
 * The five durable points of a step (DESIGN §7.3), by the fault point just after each: what the
 * code and the design call them. The fault points keep their `after_wiN` names: they are a contract.
 */
export const DURABLE_POINTS = {
  after_wi1: 'intent recorded',
  after_wi2: 'call marked running',
  after_wi3: 'call settled',
  after_wi4: 'step checkpointed',
  after_wi5: 'guard checkpointed',
} as const satisfies Partial<Record<FaultPoint, string>>;
export type DurablePoint = (typeof DURABLE_POINTS)[keyof typeof DURABLE_POINTS];

/** Where a test may stop the engine dead, as a killed process would stop. */
export interface FaultInjector {
  /** Called at each point; throws a {@link SimulatedCrash} to stop there. */
  reach(point: FaultPoint, step: number): void;
}

/** Production: no fault point stops anything. */
export const NO_FAULTS: FaultInjector = { reach: () => undefined };

const CRASH = marked<SimulatedCrash>('SimulatedCrash');

/** Thrown at a fault point; the engine lets it through untouched: no terminal write, no cleanup. */
export class SimulatedCrash extends Error {
  override readonly name = 'SimulatedCrash';

  constructor(
    readonly point: FaultPoint,
    readonly step: number,
  ) {
    super(`stopped dead at ${point} of step ${step}`);
    CRASH.mark(this);
  }
}

export function isSimulatedCrash(error: unknown): error is SimulatedCrash {
  return CRASH.is(error);
}

/** A fault injector that stops at the `occurrence`-th time `point` is reached (counting from 1). */
export function stopAt(point: FaultPoint, occurrence = 1): FaultInjector {
  let seen = 0;
  return {
    reach(reached, step) {
      if (reached !== point) return;
      seen += 1;
      if (seen === occurrence) throw new SimulatedCrash(point, step);
    },
  };
}
