import { assertNever } from '../../core/assert_never.js';
import type { ToolActivity } from '../../engine/batch_runner.js';
import type { RecoveryEvent } from '../../recovery/generate_with_recovery.js';
import { spanText, type FinishedOnStop } from '../notices/texts.js';

/** Where a running turn stands; times are monotonic milliseconds. */
export type PhaseState =
  | { readonly kind: 'preparing' }
  /** An attempt at the model is under way and nothing has streamed yet. */
  | { readonly kind: 'asking'; readonly attempt: number }
  /** The model was overloaded or unreachable: attempt `attempt` is made at `retryAt`. */
  | { readonly kind: 'waiting'; readonly attempt: number; readonly retryAt: number }
  /** The model reasons before it answers (its reasoning is never shown). */
  | { readonly kind: 'thinking' }
  | { readonly kind: 'streaming' }
  | { readonly kind: 'tools'; readonly running: readonly ToolActivity[] };

/** A wait for the model that began, as the user is shown it: the attempt it waits for and how long this model call has taken so far. */
export interface ModelWait {
  readonly attempt: number;
  readonly waitedMs: number;
}

/**
 * The phase of one running turn (for `/status`, `/stop` and the waiting draft), followed from
 * what the engine reports: its model calls' attempts and waits, streamed text, and tool calls.
 */
export class TurnPhase {
  #state: PhaseState = { kind: 'preparing' };
  /** When the model began the reasoning it is in now, and how long it reasoned before. */
  #thinkingSince: number | undefined;
  #thoughtMs = 0;
  /** The model call in progress: when it began, and how many attempts reached the provider. */
  #call: { readonly startedAt: number; attempts: number } | undefined;
  readonly #tools = new Map<string, ToolActivity>();
  /** The calls with an effect that ran on when /stop came, until each settles. */
  readonly #stoppedDuring = new Set<string>();
  readonly #finishedOnStop: FinishedOnStop[] = [];

  /** @param now the monotonic time now. */
  constructor(private readonly now: () => number) {}

  get state(): PhaseState {
    return this.#state;
  }

  /** How long the model reasoned in this run, over every step, the reasoning going on now included. */
  get thoughtMs(): number {
    return this.#thoughtMs + (this.#thinkingSince === undefined ? 0 : this.now() - this.#thinkingSince);
  }

  /** A model call's event; returns the wait it begins, if it begins one. */
  model(event: RecoveryEvent): ModelWait | undefined {
    const now = this.now();
    switch (event.type) {
      case 'attempt_started':
        this.#callAt(now).attempts = event.attempt;
        this.#enter({ kind: 'asking', attempt: event.attempt });
        return undefined;
      case 'attempt_failed':
      case 'refused':
      case 'switched':
        return undefined;
      case 'waiting': {
        const call = this.#callAt(now);
        this.#enter({ kind: 'waiting', attempt: call.attempts + 1, retryAt: now + event.delayMs });
        return { attempt: call.attempts + 1, waitedMs: now - call.startedAt };
      }
      case 'succeeded':
      case 'gave_up':
        this.#call = undefined;
        this.#enter({ kind: 'preparing' });
        return undefined;
      default:
        return assertNever(event);
    }
  }

  /** The model's text is arriving. */
  streamed(): void {
    this.#enter({ kind: 'streaming' });
  }

  /** The model is reasoning. */
  reasoning(): void {
    if (this.#state.kind !== 'thinking') this.#enter({ kind: 'thinking' });
  }

  /** A tool call started or finished. */
  tool(activity: ToolActivity): void {
    if (activity.type === 'started') this.#tools.set(activity.toolCallId, activity);
    else {
      this.#tools.delete(activity.toolCallId);
      if (this.#stoppedDuring.delete(activity.toolCallId)) this.#finishedOnStop.push({ toolName: activity.toolName, outcome: activity.outcome });
    }
    this.#enter(this.#tools.size === 0 ? { kind: 'preparing' } : { kind: 'tools', running: [...this.#tools.values()] });
  }

  /**
   * `/stop` came: the names of the tools running now whose effect it cannot take back. Each is left
   * to finish, and what it came to is kept for {@link finishedOnStop}.
   */
  stopRequested(): string[] {
    const running = [...this.#tools.values()].filter((tool) => tool.effect !== 'read');
    for (const tool of running) this.#stoppedDuring.add(tool.toolCallId);
    return running.map((tool) => tool.toolName);
  }

  /** The calls that ran on when /stop came and have settled since, in the order they did, with what each came to. */
  get finishedOnStop(): readonly FinishedOnStop[] {
    return this.#finishedOnStop;
  }

  /** The phase as `/status` says it: `waiting for attempt 4 of the model (in 12 s)`. */
  describe(): string {
    const state = this.#state;
    switch (state.kind) {
      case 'preparing':
        return 'preparing the next step';
      case 'asking':
        return state.attempt === 1 ? 'waiting for the model’s answer' : `waiting for the model’s answer (attempt ${state.attempt})`;
      case 'waiting':
        return `waiting for attempt ${state.attempt} of the model (in ${spanText(state.retryAt - this.now())})`;
      case 'thinking':
        return 'the model is thinking';
      case 'streaming':
        return 'the model is writing its answer';
      case 'tools':
        return `running ${state.running.map((tool) => `\`${tool.toolName}\``).join(', ')}`;
      default:
        return assertNever(state);
    }
  }

  /** Moves to `state`, adding up the time the model reasoned when it leaves its reasoning. */
  #enter(state: PhaseState): void {
    const now = this.now();
    if (this.#thinkingSince !== undefined) this.#thoughtMs += now - this.#thinkingSince;
    this.#thinkingSince = state.kind === 'thinking' ? now : undefined;
    this.#state = state;
  }

  #callAt(now: number): { readonly startedAt: number; attempts: number } {
    this.#call ??= { startedAt: now, attempts: 0 };
    return this.#call;
  }
}

/** What a turn's draft shows while it waits for the model: `waiting for the model (attempt 4, 37 s)…`. */
export function waitingText(wait: ModelWait): string {
  return `waiting for the model (attempt ${wait.attempt}, ${spanText(wait.waitedMs)})…`;
}
