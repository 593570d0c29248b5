import type { RunDeps } from '../../engine/run_turn.js';
import { TurnStats } from '../../engine/turn_stats.js';
import { modelsAt, overrideAt } from '../channel_overrides.js';
import type { ConversationDeps } from '../conversation_deps.js';
import type { InboundMessage } from '../transport.js';
import { turnStoreTimings } from '../../turn_state/store_options.js';
import { TurnPhase, waitingText } from './turn_phase.js';
import { ToolProgress } from './tool_progress.js';
import { limitsFor } from './usage_admission.js';
import { UsageMeter } from './usage_meter.js';

/** What one run of a turn used, when it began (monotonic), for its `turn finished` line, and where it stands. */
export interface RunCounting {
  readonly stats: TurnStats;
  readonly startedAt: number;
  readonly phase: TurnPhase;
}

/**
 * What a run's streamed text is marked with, and what is said the first time the model answers
 * it: a resumed turn is announced only once the model really answered.
 */
export interface Streaming {
  turnId: string;
  firstAnswer: (() => void) | undefined;
  /** An automatic try shows nothing, its waits included, until the model answers. */
  quiet: boolean;
}

/** A run's counts and phase, from now. */
export function newRunCounting(deps: Pick<ConversationDeps, 'clock' | 'recovery'>): RunCounting {
  const { clock, recovery } = deps;
  // The phase's waits are the recovery policy's, on its clock.
  return { stats: new TurnStats(), startedAt: clock.monotonicNow(), phase: new TurnPhase(() => recovery.clock.monotonicNow()) };
}

/**
 * The engine's dependencies for a run of a turn answering `message`, on the models of the place
 * it was said (its `overrides` entry's, else every configured one), `chosen` first when an admin
 * chose one of them for the channel (DESIGN §5.4): its streamed text and its
 * waits for the model go to the channel, marked with `streaming.turnId`, as does what its tools do
 * once they run for a while ({@link ToolProgress}), and the first model event
 * calls `streaming.firstAnswer`; the run counts into `counting.stats` and follows its phase in
 * `counting.phase`.
 * @throws when no model is configured.
 */
export function engineDeps(deps: ConversationDeps, message: InboundMessage, streaming: Streaming, counting: RunCounting, chosen: string | undefined): RunDeps {
  const route = modelsAt(deps, overrideAt(deps.config.overrides, message.channelId, message.place), chosen);
  if (route === undefined) throw new Error('no model is configured');
  const [provider, ...fallbacks] = route;
  const progress = new ToolProgress(deps.clock, counting.phase, (text) =>
    deps.sink.post({ type: 'working', channelId: message.channelId, inReplyTo: message.messageId, turn: streaming.turnId, text }),
  );
  return {
    provider,
    fallbacks,
    recovery: deps.recovery,
    clock: deps.clock,
    faults: deps.faults,
    // Heartbeats come every third of the lease, so that two may be lost before it runs out.
    heartbeatMs: turnStoreTimings(deps.config.turn_state).leaseTtlMs / 3,
    approvalTimeoutMs: deps.config.tools.approval_timeout_minutes * 60_000,
    stats: counting.stats,
    meter: new UsageMeter(deps.usage, limitsFor(deps.config, message).turn, deps.config.llm.prices, deps.logger),
    onStreamEvent: (event) => {
      const firstAnswer = streaming.firstAnswer;
      streaming.firstAnswer = undefined;
      streaming.quiet = false;
      firstAnswer?.();
      if (event.type === 'reasoning_delta') counting.phase.reasoning();
      if (event.type !== 'text_delta') return;
      counting.phase.streamed();
      deps.sink.post({ type: 'delta', channelId: message.channelId, inReplyTo: message.messageId, turn: streaming.turnId, text: event.text });
    },
    onRecoveryEvent: (event) => {
      // A model that failed after some text hands over to one that writes its answer afresh.
      if (event.type === 'switched' && counting.phase.state.kind === 'streaming' && !streaming.quiet) {
        deps.sink.post({
          type: 'waiting',
          channelId: message.channelId,
          inReplyTo: message.messageId,
          turn: streaming.turnId,
          attempt: 0,
          text: `${event.from.model} is overloaded: ${event.to.model} goes on…`,
        });
      }
      const wait = counting.phase.model(event);
      if (wait !== undefined && !streaming.quiet)
        deps.sink.post({ type: 'waiting', channelId: message.channelId, inReplyTo: message.messageId, turn: streaming.turnId, attempt: wait.attempt, text: waitingText(wait) });
    },
    onToolActivity: (activity) => {
      counting.phase.tool(activity);
      progress.changed();
    },
  };
}
