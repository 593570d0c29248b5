import { assertNever } from '../../core/assert_never.js';
import { ShutdownReason } from '../../engine/shutdown_reason.js';
import { AutoResumer, type AutoResumeTarget } from './auto_resume.js';
import { ChannelLanes } from './channel_lanes.js';
import { followMessageChange } from '../history/history_changes.js';
import { HistoryFitting } from '../history/history_fitting.js';
import { helpCommand, statusCommand, stopCommand, unknownCommand } from '../notices/channel_commands.js';
import type { ConversationDeps } from '../conversation_deps.js';
import { dropKept, KeptInOrder, waitingMessages, type WaitingMessage } from './inbox.js';
import { channelKey, type Inbound, type InboundMessage, type MessageChange, postNotice, type ServedChannels } from '../transport.js';
import { TEXTS, tooLongText, waitedTooLongText } from '../notices/texts.js';
import { turnStoreTimings } from '../../turn_state/store_options.js';
import { modelsAt, overrideAt } from '../channel_overrides.js';
import { routeBreakers } from '../../recovery/model_route.js';
import { operatorCommand } from '../operators/operator_commands.js';
import { modelCommand } from '../model_choice.js';
import { usageCommand } from '../usage_command.js';
import { postResolved, resolvedNotice } from '../operators/resolution_notices.js';
import { approvalCommand, tellAnswered } from '../operators/approvals.js';
import { APPROVALS_ANSWERED, type TurnRecord } from '../../turn_state/turn_types.js';
import { TurnRunner, type TurnRun } from './turn_runner.js';
import { NO_TRACER, type TraceRef } from '../../core/tracing.js';
import { receivedSpan } from '../../engine/turn_trace.js';

/**
 * The transport-neutral intake (DESIGN §2, §8): transports hand it typed commands; `/stop`,
 * `/status`, `/usage` and the admins' `/model`, `/turns` and `/resolve` are answered at once, messages and resumes wait for their channel's lane and run
 * one at a time, and a turn suspended by an overload is watched for an automatic resume.
 */
export class Intake {
  readonly #lanes: ChannelLanes;
  readonly #runner: TurnRunner;
  readonly #commands = new Set<Promise<void>>();
  readonly #kept = new KeptInOrder();
  readonly #auto: AutoResumer;
  readonly #stopping = new AbortController();
  readonly #fitting: HistoryFitting;
  /** The message each auto-resumable turn answered, for its author and roles. */
  readonly #suspendedMessages = new Map<string, InboundMessage>();
  /** The message each turn parked for an operator's verdict answered (DESIGN §9.1). */
  readonly #parkedMessages = new Map<string, InboundMessage>();
  #accepting = true;

  constructor(private readonly deps: ConversationDeps) {
    this.#lanes = new ChannelLanes(deps.config.chat.max_queued_per_channel, deps.logger);
    this.#fitting = new HistoryFitting(deps, this.#stopping.signal);
    this.#runner = new TurnRunner(deps, this.#stopping.signal, this.#fitting);
    this.#auto = new AutoResumer((target) => this.#autoResume(target));
  }

  /**
   * Takes one command: `/help`, an unknown one, `/stop`, `/status`, `/usage`, `/model`, `/turns` and
   * `/resolve` at once, anything else in its channel's lane; one too long for
   * `chat.max_message_chars` not at all.
   */
  submit(inbound: Inbound): void {
    if (!this.#accepting) return;
    const { origin } = inbound;
    if (rejectTooLong(origin, this.deps)) return;
    switch (inbound.kind) {
      case 'help':
        return helpCommand(origin, this.deps);
      case 'unknown':
        return unknownCommand(origin, inbound.command, this.deps);
      case 'stop':
        return stopCommand(origin, this.#runner.running, this.deps);
      case 'status':
        return this.#answering(statusCommand(origin, this.#runner.running, this.#lanes.waitingIn(channelKey(origin)), this.deps));
      case 'model':
        return this.#answering(modelCommand(inbound, this.deps));
      case 'usage':
        return this.#answering(usageCommand(inbound, this.deps));
      case 'turns':
      case 'resolve':
        return this.#answering(operatorCommand(inbound, this.deps, () => this.#announceNow(origin.source)));
      case 'approval':
        return this.#answering(approvalCommand(inbound, this.deps, () => this.#announceNow(origin.source)));
      case 'resume':
        if (this.#refusedAsBusy(origin)) return;
        return this.#enqueue(origin, 'resume', (received) => this.#runner.resumeCommand(origin, inbound.turnId, inbound.spoken, received));
      case 'message': {
        if (this.#refusedAsBusy(origin)) return;
        const kept = this.#kept.keep(this.deps.store, origin, this.deps.logger);
        return this.#enqueue(origin, 'message', async (received) => this.#runner.message(origin, await kept, received));
      }
      default:
        return assertNever(inbound);
    }
  }

  /** Makes the history follow an edit or a deletion of a message, at once: a turn's frozen transcript stays as it was. */
  follow(change: MessageChange): void {
    if (!this.#accepting) return;
    this.#answering(followMessageChange(change, this.deps.history, this.deps.logger));
  }

  /**
   * Queues the messages that the last process accepted and never started in the channels this
   * process serves (DESIGN §8.1, §7.7), each in its channel's order and ahead of anything new; one
   * whose resume window closed while it waited is answered `expired` instead. Call it once,
   * before the transport's messages.
   */
  async restoreInbox(channels: ServedChannels): Promise<void> {
    const { deps } = this;
    const windowMs = turnStoreTimings(deps.config.turn_state).resumeTtlMs;
    let waiting: WaitingMessage[];
    try {
      waiting = await waitingMessages(deps.store, channels, deps.logger);
    } catch (error) {
      deps.logger.error({ err: error }, 'the inbox could not be read: messages queued before the restart wait for the next start');
      return;
    }
    for (const { message, kept, acceptedAt } of waiting) {
      if (deps.clock.now() - acceptedAt >= windowMs) {
        postNotice(deps.sink, message, null, 'expired', waitedTooLongText(deps.config.turn_state.resume_ttl_hours));
        await dropKept(deps.store, kept, deps.logger);
        continue;
      }
      this.#enqueue(message, 'message', (received) => this.#runner.message(message, kept, received));
    }
  }

  /**
   * Continues by itself each turn a restart interrupted (DESIGN §9): with
   * `turn_state.continue_after_restart` on, every saved turn of the channels this process serves
   * that was interrupted (a crash) or suspended by a shutdown is queued in its channel's lane,
   * oldest first, as the requester's `resume` would be. Resolves with the ids of the turns it
   * queued: their channels need not be told to type `resume`. Call it once, before
   * {@link restoreInbox}: such a turn came before the messages that waited behind it.
   */
  async continueAfterRestart(channels: ServedChannels): Promise<ReadonlySet<string>> {
    const { deps } = this;
    const queued = new Set<string>();
    if (!deps.config.turn_state.continue_after_restart || deps.provider === undefined || !deps.store.durable) return queued;
    let saved;
    try {
      saved = await deps.operator.listTurns({ statuses: ['SUSPENDED'], source: channels.source });
    } catch (error) {
      deps.logger.error({ err: error }, 'the turns a restart interrupted could not be read: their requesters type `resume`');
      return queued;
    }
    const interrupted = saved.map((overview) => overview.turn).filter((turn) => RESTART_REASONS.has(turn.suspensionReason ?? ''));
    for (const turn of interrupted.reverse()) {
      if (!(await channels.serves(turn.identity.channelId))) continue;
      const original = originalMessageOf(turn);
      this.#lanes.enqueue(channelKey(original), () => this.#start(original, () => this.#runner.continueSaved(turn, original, 'restart')));
      queued.add(turn.turnId);
    }
    return queued;
  }

  /**
   * Tells the requester of each turn of `source` that the operators' verdicts made resumable
   * (DESIGN §9.1), once: with `turn_state.auto_resume` on, a turn whose message this process
   * still holds continues by itself in its channel's lane; any other waits for `resume`. First
   * denies every request for approval past its time; a turn whose calls were all answered goes on
   * by itself where its channel is served (§9.2).
   */
  async announceResolutions(source: string): Promise<void> {
    const { deps } = this;
    if (!this.#accepting) return;
    await deps.store.expireApprovals();
    for (const turn of await deps.store.listResolvedUntold(source)) {
      if (turn.suspensionReason === APPROVALS_ANSWERED) {
        await this.#continueAnswered(turn);
        continue;
      }
      if (!(await deps.store.markResolutionTold(turn.turnId))) continue;
      const original = this.#parkedMessages.get(turn.turnId);
      this.#parkedMessages.delete(turn.turnId);
      const continuing = original !== undefined && deps.config.turn_state.auto_resume && deps.provider !== undefined;
      postResolved(deps.sink, turn, resolvedNotice(turn, await deps.store.listOps(turn.turnId), continuing));
      if (!continuing) continue;
      const answerTo = { ...original, messageId: `auto-${turn.turnId}` };
      this.#lanes.enqueue(channelKey(original), () => this.#start(original, () => this.#runner.autoResume(turn, original, answerTo)));
    }
  }

  /**
   * A turn whose calls were all answered (DESIGN §9.2) goes on in its channel's lane, on the
   * process that serves the channel, once: its requests show their answers, a timeout is told,
   * and it is resumed as its requester's `resume` would be, with the roles they hold now.
   */
  async #continueAnswered(turn: TurnRecord): Promise<void> {
    const { deps } = this;
    if (deps.served !== undefined && !(await deps.served.serves(turn.identity.channelId))) return;
    if (!(await deps.store.markResolutionTold(turn.turnId))) return;
    tellAnswered(turn, await deps.store.listOps(turn.turnId), deps);
    const original = this.#parkedMessages.get(turn.turnId) ?? originalMessageOf(turn);
    this.#parkedMessages.delete(turn.turnId);
    this.#lanes.enqueue(channelKey(original), () => this.#start(original, () => this.#runner.continueSaved(turn, original, 'approval')));
  }

  /** Resolves when every queued and running turn has ended, every command is answered and every history fitting is done. */
  async idle(): Promise<void> {
    await Promise.all([...this.#commands]);
    await this.#lanes.idle();
    await this.#fitting.idle();
  }

  /** Stops taking messages, suspends every running turn with its work kept (reason `shutdown`) and ends a history summary's wait, changing nothing. */
  async shutdown(): Promise<void> {
    this.#accepting = false;
    this.#stopping.abort();
    await this.#auto.stop();
    for (const running of this.#runner.running.values()) running.controller.abort(new ShutdownReason());
    await this.#lanes.idle();
    await this.#fitting.idle();
  }

  /** Ends the auto-resume waiters, once nothing is left to do: they do not survive the process. */
  async close(): Promise<void> {
    this.#accepting = false;
    await this.#auto.stop();
  }

  /** Keeps a command's answer in progress, so that {@link idle} waits for it. */
  #answering(answered: Promise<void>): void {
    const kept = answered.finally(() => this.#commands.delete(kept));
    this.#commands.add(kept);
  }

  /** Tells the requesters of turns the operators just resolved, at once rather than at the watch's next look (DESIGN §9.1). */
  async #announceNow(source: string): Promise<void> {
    try {
      await this.announceResolutions(source);
    } catch (error) {
      this.deps.logger.error({ err: error }, 'resolved turns could not be announced: the watch for verdicts tries again');
    }
  }

  /**
   * Answers `busy` when the origin's channel already has as many jobs waiting as it may, once the
   * messages taken before it are on disk: a member told to send this one again may count on those.
   */
  #refusedAsBusy(origin: InboundMessage): boolean {
    if (this.#lanes.hasRoom(channelKey(origin))) return false;
    this.#answering(this.#kept.settled(origin).then(() => postNotice(this.deps.sink, origin, null, 'busy', TEXTS.busy)));
    return true;
  }

  /** Queues `work` in the origin's channel, to start when the jobs before it are done, traced as the message received until it is over. */
  #enqueue(origin: InboundMessage, kind: 'message' | 'resume', work: (received: TraceRef | undefined) => Promise<TurnRun | undefined>): void {
    const identity = { source: origin.source, channelId: origin.channelId, messageId: origin.messageId };
    const received = receivedSpan(this.deps.tracer ?? NO_TRACER, identity, origin.authorId, kind, origin.text);
    this.#lanes.enqueue(channelKey(origin), () => this.#start(origin, () => work(received.ref)).finally(() => received.end()), origin);
  }

  /**
   * A queued job's turn to run: nothing starts once shutdown began (a message stays in the
   * inbox for the next start). A failure is logged at ERROR with the channel and its cause, and
   * the user is told it failed.
   */
  async #start(origin: InboundMessage, work: () => Promise<TurnRun | undefined>): Promise<void> {
    if (!this.#accepting) return;
    try {
      await this.#watchIfOverloaded(origin, await work());
    } catch (error) {
      this.deps.logger.error({ err: error, channel: origin.channelId, message: origin.messageId }, 'handling a message failed');
      postNotice(this.deps.sink, origin, null, 'failed', TEXTS.handlingFailed);
    }
  }

  /**
   * A turn suspended by an overload, or one whose resume found another probe in flight, is
   * resumed by itself when the breaker of one of its models admits it; the message of a turn parked for a
   * verdict is kept, so that it can go on by itself once resolved.
   */
  async #watchIfOverloaded(message: InboundMessage, run: TurnRun | undefined): Promise<void> {
    const { deps } = this;
    if (run === undefined) return;
    if (run.kind === 'ran' && (run.ending.status === 'AWAITING_RESOLUTION' || run.ending.status === 'AWAITING_APPROVAL')) this.#parkedMessages.set(run.turnId, withoutAttachments(message));
    if (run.kind === 'ran' && (run.ending.status !== 'SUSPENDED' || run.ending.suspendedFor !== 'capacity')) return;
    const route = modelsAt(deps, overrideAt(deps.config.overrides, message.channelId, message.place));
    if (!deps.config.turn_state.auto_resume || route === undefined || !deps.store.durable) return;
    const channel = channelKey(message);
    if (!this.#suspendedMessages.has(run.turnId)) this.#suspendedMessages.set(run.turnId, withoutAttachments(message));
    this.#auto.watch({ turnId: run.turnId, channel, revision: await deps.history.revision(channel) }, routeBreakers(route, deps.recovery.breakers));
  }

  /** A breaker of the turn's models admits a waiter's turn: under the channel's lane, the turn resumes unless the conversation moved on. */
  #autoResume(target: AutoResumeTarget): void {
    const original = this.#suspendedMessages.get(target.turnId);
    if (original === undefined || !this.#accepting) return;
    this.#lanes.enqueue(target.channel, () => this.#start(original, () => this.#autoResumeNow(target, original)));
  }

  async #autoResumeNow(target: AutoResumeTarget, original: InboundMessage): Promise<TurnRun | undefined> {
    this.#suspendedMessages.delete(target.turnId);
    let revision: number | undefined;
    try {
      revision = await this.deps.history.revision(target.channel);
    } catch {
      revision = undefined;
    }
    const turn = revision === target.revision ? await this.deps.store.getTurn(target.turnId) : undefined;
    if (turn?.status !== 'SUSPENDED') {
      this.deps.logger.info({ turn: target.turnId }, 'auto-resume stands down: the conversation moved on');
      return undefined;
    }
    return this.#runner.autoResume(turn, original, { ...original, messageId: `auto-${target.turnId}` });
  }
}

/** Why a turn was suspended when a restart interrupted it: the start-up sweep found it running, or the bot was shutting down. */
const RESTART_REASONS: ReadonlySet<string> = new Set(['interrupted', 'shutdown']);

/** A saved turn's original message as far as the store knows it, for a continuation nobody typed: its author, and the roles they hold now, are read again from the transport. */
function originalMessageOf(turn: TurnRecord): InboundMessage {
  const { source, channelId, messageId } = turn.identity;
  return { source, channelId, authorId: turn.requesterId, authorRoleIds: [], messageId, text: '' };
}

/** A message without its downloaded files: a resumed turn reads them from its stored transcript. */
function withoutAttachments(message: InboundMessage): InboundMessage {
  const { attachments, ...rest } = message;
  return rest;
}

/**
 * The bound on what one message may carry (`chat.max_message_chars`), checked before anything
 * of it is kept or sent: a longer message is answered `rejected`, naming the limit, and goes no
 * further. Its attachments do not count; they have their own limits.
 */
export function rejectTooLong(message: InboundMessage, deps: Pick<ConversationDeps, 'config' | 'sink' | 'logger'>): boolean {
  const limit = deps.config.chat.max_message_chars;
  if (message.text.length <= limit) return false;
  deps.logger.info({ channel: message.channelId, message: message.messageId, chars: message.text.length, limit }, 'message rejected: longer than chat.max_message_chars');
  postNotice(deps.sink, message, null, 'rejected', tooLongText(limit));
  return true;
}
