import type { ChatTurn } from './chat_turn.js';
import type { TurnDurability } from './durability.js';
import { endTurn, type TurnEnding } from './terminal_writer.js';
import { encodeCheckpointState } from './turn_codec.js';
import { outcomeOfError, runLoop, type EngineDeps } from './tool_loop.js';

export interface RunDeps extends EngineDeps {
  /** How often the owner beats its lease: a third of the lease TTL. */
  readonly heartbeatMs: number;
}

/**
 * Runs a turn to its end: the lease is kept alive while the loop works, and the terminal writer
 * ends the turn with the loop's outcome. A SimulatedCrash stops everything where it stands.
 */
async function executeTurn(turn: ChatTurn, durability: TurnDurability, deps: RunDeps): Promise<TurnEnding> {
  const stopBeating = new AbortController();
  const beating = durability.keepAlive(deps.clock, deps.heartbeatMs, stopBeating.signal);
  try {
    return await endTurn(await runLoop(turn, durability, deps), durability);
  } finally {
    stopBeating.abort();
    await beating;
  }
}

/** A new turn: its transcript (the frozen history and the user's message) is durable before the first model call. */
export async function startTurn(turn: ChatTurn, durability: TurnDurability, deps: RunDeps): Promise<TurnEnding> {
  try {
    await durability.checkpoint(turn.transcript, encodeCheckpointState(turn), false);
  } catch (error) {
    return endTurn(outcomeOfError(error, turn), durability);
  }
  return executeTurn(turn, durability, deps);
}
