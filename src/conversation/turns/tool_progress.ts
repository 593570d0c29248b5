import { RELEASED } from '../../core/linked_abort.js';
import type { Clock } from '../../core/clock.js';
import type { TurnPhase } from './turn_phase.js';
import { runningToolsText } from '../notices/texts.js';

/** How long tools run before the draft says so: a quick call shows nothing. */
export const TOOLS_SHOWN_AFTER_MS = 2_000;

/**
 * What a turn's draft says while its tools run (DESIGN §8): once a call has run for
 * {@link TOOLS_SHOWN_AFTER_MS}, `show` gets `running open_ticket…`, every call of the step that
 * still runs named together, and again whenever that list changes while it is shown. It says
 * nothing once no call runs (every call reports its end, so no wait outlives the run): the
 * model's next text or wait replaces it.
 *
 * @example
 * ```ts
 * const progress = new ToolProgress(clock, phase, (text) => sink.post({ type: 'working', …, text }));
 * phase.tool(activity);
 * progress.changed(); // after 2 s with open_ticket still running: show('running open_ticket…')
 * ```
 */
export class ToolProgress {
  /** Ends the wait for the threshold, when no call runs any more. */
  #waiting: AbortController | undefined;
  /** What the draft shows now, once the threshold passed. */
  #shown: string | undefined;

  constructor(
    private readonly clock: Clock,
    private readonly phase: TurnPhase,
    private readonly show: (text: string) => void,
  ) {}

  /** The phase's running tools changed: shows them once they ran long enough, or stops. */
  changed(): void {
    const text = this.#runningText();
    if (text === undefined) return this.#stop();
    if (this.#shown !== undefined) return this.#showIfNew(text);
    if (this.#waiting !== undefined) return;
    const waiting = new AbortController();
    this.#waiting = waiting;
    this.clock.sleep(TOOLS_SHOWN_AFTER_MS, waiting.signal).then(
      () => {
        this.#waiting = undefined;
        const now = this.#runningText();
        if (now !== undefined) this.#showIfNew(now);
      },
      () => undefined,
    );
  }

  #runningText(): string | undefined {
    const { state } = this.phase;
    return state.kind === 'tools' ? runningToolsText(state.running.map((tool) => tool.toolName)) : undefined;
  }

  #showIfNew(text: string): void {
    if (text === this.#shown) return;
    this.#shown = text;
    this.show(text);
  }

  #stop(): void {
    this.#waiting?.abort(RELEASED);
    this.#waiting = undefined;
    this.#shown = undefined;
  }
}
