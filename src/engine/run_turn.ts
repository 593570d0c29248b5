import { RELEASED } from '../core/linked_abort.js';
import type { ChatTurn } from './chat_turn.js';
import type { TurnDurability } from './durability.js';
import type { EngineDeps } from './generation.js';
import { endTurn, type TurnEnding } from './terminal_writer.js';
import { TurnLog } from './turn_log.js';
import { runLoop } from './tool_loop.js';

export interface RunDeps extends EngineDeps {
  /** How often the owner beats its lease: a third of the lease TTL. */
  readonly heartbeatMs: number;
  /** How long a call's request for approval waits for an answer before it is denied (`tools.approval_timeout_minutes`, DESIGN §9.2). */
  readonly approvalTimeoutMs: number;
}

/** How a run begins: a new turn, or an interrupted one with the log written after its checkpoint. */
export type TurnStart = { readonly kind: 'fresh' } | { readonly kind: 'resumed'; readonly log: TurnLog };

/**
 * Runs a turn to its end, fresh or resumed, through the one loop: the lease is kept alive while
 * the loop works, and the terminal writer ends the turn with the loop's outcome. A new turn's
 * transcript (the frozen history and the user's message) was stored with its admission; a
 * resumed one's first model call gets what is left of its persisted deadline. The run's trace,
 * if it has one, ends with it. A SimulatedCrash stops everything where it stands.
 */
export async function runTurn(turn: ChatTurn, start: TurnStart, durability: TurnDurability, deps: RunDeps): Promise<TurnEnding> {
  const stopBeating = new AbortController();
  const beating = durability.keepAlive(deps.clock, deps.heartbeatMs, stopBeating.signal);
  try {
    const log = start.kind === 'fresh' ? TurnLog.empty() : start.log;
    const remaining = start.kind === 'resumed' && turn.recoveryDeadlineAt !== null ? turn.recoveryDeadlineAt - deps.clock.now() : undefined;
    const ending = await endTurn(await runLoop(turn, log, durability, deps, remaining), durability, deps.approvalTimeoutMs);
    turn.trace?.ended(ending);
    return ending;
  } catch (error) {
    turn.trace?.threw(error);
    throw error;
  } finally {
    stopBeating.abort(RELEASED);
    await beating;
  }
}
