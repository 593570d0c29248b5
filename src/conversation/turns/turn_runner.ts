import { assertNever } from '../../core/assert_never.js';
import { endTurn, type TurnEnding } from '../../engine/terminal_writer.js';
import { runTurn, type RunDeps } from '../../engine/run_turn.js';
import type { TurnRecord } from '../../turn_state/turn_types.js';
import type { TraceRef } from '../../core/tracing.js';
import { admitMessage, userHistoryEntry } from './admission.js';
import type { HistoryFitting } from '../history/history_fitting.js';
import { loadHistory } from '../history/history_policy.js';
import type { ConversationDeps } from '../conversation_deps.js';
import { channelKey, type InboundMessage, type NoticeKind, postNotice } from '../transport.js';
import { resumeCommand, resumeTurn, type ResumeAsker, type ResumeAttempt } from './resume.js';
import { probeInFlightText, stillOverloadedText, TEXTS } from '../notices/texts.js';
import { deliverEnding } from './turn_ending.js';
import { dropKept, inboxIdOf, type KeptMessage } from './inbox.js';
import { ShutdownReason } from '../../engine/shutdown_reason.js';
import { outcomeOfError } from '../../engine/turn_outcome.js';
import type { TurnPhase } from './turn_phase.js';
import { engineDeps, newRunCounting, type RunCounting, type Streaming } from './turn_engine.js';
import { usageRefusal } from './usage_admission.js';
import { earliestTry, routeBreakers } from '../../recovery/model_route.js';
import { modelsAt, overrideAt } from '../channel_overrides.js';
import { chosenModelIn } from '../model_choice.js';

/** A turn in progress in a channel: whom it answers, how /stop reaches it, and where it stands since when (monotonic). */
export interface RunningTurn {
  readonly turnId: string;
  readonly requesterId: string;
  readonly controller: AbortController;
  readonly phase: TurnPhase;
  readonly startedAt: number;
}

/** A turn that ran, and how it ended; or a saved turn that its model's breaker did not let try, left as it was. */
export type TurnRun = { readonly kind: 'ran'; readonly turnId: string; readonly ending: TurnEnding } | { readonly kind: 'waiting'; readonly turnId: string };

/**
 * Runs the turns of the conversation (DESIGN §8, §9), one at a time per channel as the lanes
 * call it: a message is admitted and run fresh, a resume command or an automatic resume
 * continues a saved turn; the running turn is registered for /stop and /status while it works,
 * and its ending is delivered. Resolves with the run, or `undefined` when no turn ran.
 */
export class TurnRunner {
  readonly running = new Map<string, RunningTurn>();

  constructor(
    private readonly deps: ConversationDeps,
    private readonly shutdown: AbortSignal,
    private readonly fitting: HistoryFitting,
  ) {}

  /**
   * A message for the model, kept in the inbox until now: admitted (an identity that exists
   * never runs fresh; the admission takes it out of the inbox), then run. Nothing is admitted
   * once shutdown began. A failure before admission leaves the inbox without it (the intake tells the
   * user); one after admission ends the turn through the terminal writer, so no turn stays
   * ACTIVE without an owner. The turn is traced under `received`, the message's span, when it has one.
   */
  async message(message: InboundMessage, kept: KeptMessage = { kind: 'memory' }, received?: TraceRef): Promise<TurnRun | undefined> {
    const { deps } = this;
    if (kept.kind === 'unavailable') return this.#answered(message, kept, 'failed', TEXTS.storeUnavailable);
    if (deps.provider === undefined) return this.#noModel(message, kept);
    const controller = new AbortController();
    const counting = newRunCounting(this.deps);
    const chosen = await chosenModelIn(message, deps);
    // A durable admission counts the turn against its owner's limits in its own transaction.
    const refusal = deps.store.durable ? undefined : await this.#orDropped(kept, () => usageRefusal(message, deps));
    if (refusal !== undefined) return this.#answered(message, kept, 'limited', refusal);
    const history = await this.#orDropped(kept, () => loadHistory(deps.history, channelKey(message), deps.config.llm.vision));
    // A shutdown that began meanwhile leaves the message in the inbox, for the next start.
    if (this.shutdown.aborted) return undefined;
    const admitted = await this.#orDropped(kept, () => admitMessage(message, history.messages, inboxIdOf(kept), controller.signal, deps, received));
    // Admission took the message out of the inbox, unless the store failed: then it is told it failed, and not run later.
    if (admitted.kind === 'notice') return this.#answered(message, kept, admitted.notice, admitted.text, admitted.turn);
    const { turn, durability, trace } = admitted;
    deps.faults.reach('after_admission', 0);
    return this.#run(message, turn.turnId, trace.logFields, controller, counting, chosen, async (engine) => {
      try {
        // A durable admission added the message to the history in its own transaction.
        if (!deps.store.durable) await deps.history.append(channelKey(message), userHistoryEntry(message));
      } catch (error) {
        const ending = await endTurn(outcomeOfError(error, turn), durability, engine.approvalTimeoutMs);
        trace.ended(ending);
        return ending;
      }
      return runTurn(turn, { kind: 'fresh' }, durability, engine);
    });
  }

  /**
   * `resume` / `/resume [turn]`: the requester's saved turn continues, trying the model now even
   * while its breaker is open (it is the probe); spoken words with nothing saved are a message.
   * While another probe is in flight it says when the next try is. The resumed run is traced under
   * `received`, the command's span, when it has one.
   */
  async resumeCommand(origin: InboundMessage, turnId: string | undefined, spoken: boolean, received?: TraceRef): Promise<TurnRun | undefined> {
    const { deps } = this;
    if (deps.provider === undefined) return this.#noModel(origin);
    const controller = new AbortController();
    const streaming: Streaming = { turnId: '', firstAnswer: undefined, quiet: false };
    const counting = newRunCounting(this.deps);
    const chosen = await chosenModelIn(origin, deps);
    const attempt = await resumeCommand(origin, turnId, spoken, controller.signal, {
      ...deps,
      engine: engineDeps(this.deps, origin, streaming, counting, chosen),
      ...(received === undefined ? {} : { received }),
    });
    if (attempt.kind === 'not_a_resume') return this.message(origin, { kind: 'memory' }, received);
    return this.#resumed(origin, attempt, 'requester', controller, streaming, counting, chosen);
  }

  /**
   * An automatic resume of `turn` (DESIGN §9), answering `answerTo`: it goes through the same
   * checks as an explicit one, but only when the model's breaker admits it, and it says nothing
   * until the model answers: a try that finds the model still overloaded only updates the turn's
   * suspended notice with the next try.
   */
  async autoResume(turn: TurnRecord, original: InboundMessage, answerTo: InboundMessage): Promise<TurnRun | undefined> {
    const { deps } = this;
    if (deps.provider === undefined) return undefined;
    const controller = new AbortController();
    const streaming: Streaming = { turnId: turn.turnId, firstAnswer: undefined, quiet: true };
    const counting = newRunCounting(this.deps);
    const chosen = await chosenModelIn(answerTo, deps);
    const attempt = await resumeTurn(turn, original, 'automatic', controller.signal, { ...deps, engine: engineDeps(this.deps, answerTo, streaming, counting, chosen) });
    return this.#resumed(answerTo, attempt, 'automatic', controller, streaming, counting, chosen);
  }

  /**
   * A saved turn continues by itself, answering its original message `original`: one a restart
   * interrupted (SIGTERM or a crash), once the bot is back (`turn_state.continue_after_restart`,
   * DESIGN §9), the channel told once as the model answers; or one whose calls were all answered
   * (DESIGN §9.2), the answers on its requests saying it all. It goes through the checks of a typed
   * `resume` and tries the model at once. A turn another resume took meanwhile is left to it, silently.
   */
  async continueSaved(turn: TurnRecord, original: InboundMessage, askedBy: 'restart' | 'approval'): Promise<TurnRun | undefined> {
    const { deps } = this;
    if (deps.provider === undefined) return undefined;
    const controller = new AbortController();
    const streaming: Streaming = { turnId: turn.turnId, firstAnswer: undefined, quiet: false };
    const counting = newRunCounting(this.deps);
    const chosen = await chosenModelIn(original, deps);
    const attempt = await resumeTurn(turn, original, askedBy, controller.signal, { ...deps, engine: engineDeps(this.deps, original, streaming, counting, chosen) });
    if (attempt.kind === 'notice' && attempt.notice === 'in_progress') return undefined;
    return this.#resumed(original, attempt, askedBy, controller, streaming, counting, chosen);
  }

  async #resumed(
    answerTo: InboundMessage,
    attempt: ResumeAttempt,
    askedBy: ResumeAsker,
    controller: AbortController,
    streaming: Streaming,
    counting: RunCounting,
    chosen: string | undefined,
  ): Promise<TurnRun | undefined> {
    const { deps } = this;
    switch (attempt.kind) {
      case 'not_a_resume':
        return undefined;
      case 'overloaded':
        if (askedBy !== 'automatic') postNotice(deps.sink, answerTo, attempt.turn, 'suspended', probeInFlightText(deps.recovery.clock, attempt.retryAtMs, this.#autoResumes()));
        return { kind: 'waiting', turnId: attempt.turn };
      case 'notice':
        return void postNotice(this.deps.sink, answerTo, attempt.turn, attempt.notice, attempt.text);
      case 'ended':
        this.deps.sink.post({ type: 'turn', channelId: answerTo.channelId, turn: attempt.turn, status: attempt.status });
        return void postNotice(this.deps.sink, answerTo, attempt.turn, attempt.notice, attempt.text);
      case 'resumed': {
        const turnId = attempt.turn.turnId;
        streaming.turnId = turnId;
        if (attempt.resolved !== undefined) postNotice(deps.sink, answerTo, turnId, 'resolved', attempt.resolved);
        const quiet = askedBy === 'automatic';
        let answered = false;
        streaming.firstAnswer = () => {
          answered = true;
          if (quiet) this.#active(answerTo, turnId);
          if (askedBy !== 'approval') postNotice(deps.sink, answerTo, turnId, 'resumed', askedBy === 'restart' ? TEXTS.continuingAfterRestart : TEXTS.continuing);
        };
        const silent = quiet ? (ending: TurnEnding) => !answered && this.#stillOverloaded(answerTo, turnId, ending) : undefined;
        return this.#run(answerTo, turnId, attempt.trace.logFields, controller, counting, chosen, () => attempt.continued, silent);
      }
      default:
        return assertNever(attempt);
    }
  }

  /**
   * Runs a turn as the channel's running one (so /stop reaches it), on the channel's models with
   * `chosen` first, logs one `turn finished` line with what the run used (and `traced`, the run's trace and span ids), and delivers how it
   * ended — unless `silent(ending)` took care of it. A run that may end silently shows the turn
   * working only once the model answers.
   */
  async #run(
    message: InboundMessage,
    turnId: string,
    traced: Readonly<Record<string, string>>,
    controller: AbortController,
    counting: RunCounting,
    chosen: string | undefined,
    work: (engine: RunDeps) => Promise<TurnEnding>,
    silent?: (ending: TurnEnding) => boolean,
  ): Promise<TurnRun> {
    const { deps } = this;
    this.running.set(channelKey(message), { turnId, requesterId: message.authorId, controller, phase: counting.phase, startedAt: counting.startedAt });
    // A shutdown that began while this turn was being admitted suspends it like the running ones.
    if (this.shutdown.aborted) controller.abort(new ShutdownReason());
    if (silent === undefined) this.#active(message, turnId);
    let ending: TurnEnding;
    try {
      ending = await work(engineDeps(this.deps, message, { turnId, firstAnswer: undefined, quiet: false }, counting, chosen));
    } finally {
      this.running.delete(channelKey(message));
    }
    deps.logger.info(
      {
        turn: turnId,
        channel: message.channelId,
        requester: message.authorId,
        status: ending.status,
        durationMs: deps.clock.monotonicNow() - counting.startedAt,
        ...counting.stats.summary(),
        ...traced,
      },
      'turn finished',
    );
    if (silent?.(ending) !== true) await deliverEnding(message, turnId, ending, { ...deps, fitting: this.fitting }, counting.phase);
    return { kind: 'ran', turnId, ending };
  }

  #active(message: InboundMessage, turnId: string): void {
    this.deps.sink.post({ type: 'turn', channelId: message.channelId, turn: turnId, status: 'ACTIVE' });
  }

  /** An automatic try that found the model still overloaded says so only in the turn's suspended notice, with the next try. */
  #stillOverloaded(message: InboundMessage, turnId: string, ending: TurnEnding): boolean {
    const { deps } = this;
    const route = modelsAt(deps, overrideAt(deps.config.overrides, message.channelId, message.place));
    if (ending.status !== 'SUSPENDED' || ending.suspendedFor !== 'capacity' || route === undefined) return false;
    const retryAtMs = earliestTry(routeBreakers(route, deps.recovery.breakers));
    deps.sink.post({ type: 'notice_update', channelId: message.channelId, turn: turnId, notice: 'suspended', text: stillOverloadedText(deps.recovery.clock, retryAtMs) });
    return true;
  }

  /** Whether a turn suspended by an overload is resumed by itself. */
  #autoResumes(): boolean {
    const { deps } = this;
    return deps.config.turn_state.auto_resume && deps.provider !== undefined && deps.store.durable;
  }

  #noModel(message: InboundMessage, kept: KeptMessage = { kind: 'memory' }): Promise<undefined> {
    return this.#answered(message, kept, 'failed', TEXTS.noModel);
  }

  /** What `work` resolves to; when it fails, the message is taken out of the inbox first: it would fail again at every start. */
  async #orDropped<T>(kept: KeptMessage, work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      await dropKept(this.deps.store, kept, this.deps.logger);
      throw error;
    }
  }

  /** Answers a message with a notice instead of a turn, and takes it out of the inbox. */
  async #answered(message: InboundMessage, kept: KeptMessage, notice: NoticeKind, text: string, turn: string | null = null): Promise<undefined> {
    postNotice(this.deps.sink, message, turn, notice, text);
    await dropKept(this.deps.store, kept, this.deps.logger);
    return undefined;
  }
}
