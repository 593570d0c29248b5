import type { Config } from '../config/schema.js';
import type { Clock } from '../core/clock.js';
import type { Logger } from '../core/logger.js';
import type { LLMProvider } from '../llm/provider.js';
import type { RecoveryRuntime } from '../recovery/generate_with_recovery.js';
import type { ToolCatalog } from '../tools/catalog.js';
import { isAdmin } from '../tools/permissions.js';
import type { TurnStore } from '../turn_state/turn_store.js';
import type { TurnStatus } from '../turn_state/turn_types.js';
import { admitMessage } from './admission.js';
import { AutoResumer, type AutoResumeTarget } from './auto_resume.js';
import { ChannelLanes } from './channel_lanes.js';
import type { FaultInjector } from '../engine/fault_points.js';
import type { HistoryStore } from '../turn_state/history_store.js';
import { fitHistoryToBudget, loadHistory } from './history_policy.js';
import { summarizeThrough } from './history_summary.js';
import type { InboundMessage, MessageSource, NoticeKind, ReplySink } from './transport.js';
import { deliverReply } from './reply_delivery.js';
import { attemptResume } from './resume.js';
import { startTurn, type RunDeps } from '../engine/run_turn.js';
import { ShutdownReason } from '../engine/shutdown_reason.js';
import type { TurnEnding } from '../engine/terminal_writer.js';

/** Everything the pipeline works with; built once by the program's wiring. */
export interface IntakeDeps {
  readonly config: Config;
  /** `undefined` when durability is off: the store could not open at start-up. */
  readonly store: TurnStore | undefined;
  readonly history: HistoryStore;
  /** `undefined` when no model is configured: every message gets a notice saying what to set. */
  readonly provider: LLMProvider | undefined;
  readonly recovery: RecoveryRuntime;
  readonly catalog: () => ToolCatalog;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly sink: ReplySink;
  /** The transport's view of past messages, to check a turn's original before resuming it. */
  readonly source: MessageSource;
  /** Where a crash test stops the engine; NO_FAULTS in production. */
  readonly faults: FaultInjector;
}

interface RunningTurn {
  readonly turnId: string;
  readonly requesterId: string;
  readonly controller: AbortController;
}

/**
 * The transport-neutral intake pipeline (DESIGN §2, §8): commands are recognised before anything
 * reaches the model; other messages pass admission (an identity that exists never runs fresh),
 * wait for their channel's lane, get the channel's history, run through the engine and are
 * answered through the ReplySink.
 */
export class Intake {
  readonly #lanes: ChannelLanes;
  readonly #running = new Map<string, RunningTurn>();
  readonly #commands = new Set<Promise<void>>();
  readonly #auto: AutoResumer;
  /** The message each auto-resumable turn answered, for its author and roles. */
  readonly #suspendedMessages = new Map<string, InboundMessage>();
  #accepting = true;

  constructor(private readonly deps: IntakeDeps) {
    this.#lanes = new ChannelLanes(deps.config.chat.max_queued_per_channel);
    this.#auto = new AutoResumer(deps.recovery.clock, (target) => this.#autoResume(target));
  }

  /** Takes one message: a command is handled at once, anything else is queued on its channel's lane. */
  submit(message: InboundMessage): void {
    if (!this.#accepting) return;
    const command = message.text.trim().toLowerCase();
    if (command === '/stop') return this.#stop(message);
    if (command === '/status') {
      const answered = this.#status(message).finally(() => this.#commands.delete(answered));
      this.#commands.add(answered);
      return;
    }
    if (!this.#lanes.enqueue(channelKey(message), () => this.#handle(message))) {
      this.#notice(message, null, 'busy', 'I am still working on earlier messages in this channel; please send this again in a moment.');
    }
  }

  /** Resolves when every queued and running turn has ended and every command is answered. */
  async idle(): Promise<void> {
    await Promise.all([...this.#commands]);
    await this.#lanes.idle();
  }

  /** Stops taking messages and suspends every running turn with its work kept (reason `shutdown`). */
  async shutdown(): Promise<void> {
    this.#accepting = false;
    await this.#auto.stop();
    for (const running of this.#running.values()) running.controller.abort(new ShutdownReason());
    await this.#lanes.idle();
  }

  /** Ends the auto-resume waiters, once nothing is left to do: they do not survive the process. */
  async close(): Promise<void> {
    this.#accepting = false;
    await this.#auto.stop();
  }

  /** A waiter's probe time came: under the channel's lane, the turn resumes unless the conversation moved on. */
  #autoResume(target: AutoResumeTarget): void {
    const original = this.#suspendedMessages.get(target.turnId);
    if (original === undefined || !this.#accepting) return;
    this.#lanes.enqueue(target.channel, async () => {
      this.#suspendedMessages.delete(target.turnId);
      let revision: number | undefined;
      try {
        revision = await this.deps.history.revision(target.channel);
      } catch {
        revision = undefined;
      }
      if (revision !== target.revision) {
        this.deps.logger.info({ turn: target.turnId }, 'auto-resume stands down: the conversation moved on');
        return;
      }
      await this.#handle({ ...original, messageId: `auto-${target.turnId}`, text: `/resume ${target.turnId}` }, true);
    });
  }

  async #handle(message: InboundMessage, auto = false): Promise<void> {
    const { deps } = this;
    const provider = deps.provider;
    if (provider === undefined) {
      return this.#notice(message, null, 'failed', 'No model is configured yet: set `llm.model` (and `llm.api_key` or `llm.base_url`) in the configuration, then restart the bot.');
    }
    const controller = new AbortController();
    let turnId = '';
    const engine: RunDeps = {
      provider,
      recovery: deps.recovery,
      clock: deps.clock,
      faults: deps.faults,
      heartbeatMs: (deps.config.turn_state.lease_ttl_seconds * 1000) / 3,
      onStreamEvent: (event) => {
        if (event.type === 'text_delta') deps.sink.post({ type: 'delta', channelId: message.channelId, inReplyTo: message.messageId, turn: turnId, text: event.text });
      },
    };
    if (deps.store !== undefined) {
      const attempt = await attemptResume(message, controller.signal, { ...deps, store: deps.store, engine });
      switch (attempt.kind) {
        case 'not_a_resume':
          if (auto) return;
          break;
        case 'notice':
          return this.#notice(message, attempt.turn, attempt.notice, attempt.text);
        case 'resumed':
          turnId = attempt.turn.turnId;
          this.#notice(message, turnId, 'resumed', 'Continuing your saved request.');
          return this.#run(message, turnId, controller, () => attempt.continued);
        default: {
          const unreachable: never = attempt;
          return unreachable;
        }
      }
    }
    const history = await loadHistory(deps.history, channelKey(message));
    const admitted = await admitMessage(message, controller.signal, deps);
    if (admitted.kind === 'notice') return this.#notice(message, admitted.turn, admitted.notice, admitted.text);
    const { turn, durability } = admitted;
    turnId = turn.turnId;
    turn.transcript.unshift(...history.messages);
    await deps.history.append(channelKey(message), { role: 'user', text: message.text, authorId: message.authorId, messageId: message.messageId });
    return this.#run(message, turnId, controller, () => startTurn(turn, durability, engine));
  }

  /** Runs a turn as the channel's running one (so /stop reaches it) and delivers how it ended. */
  async #run(message: InboundMessage, turnId: string, controller: AbortController, work: () => Promise<TurnEnding>): Promise<void> {
    const { deps } = this;
    this.#running.set(channelKey(message), { turnId, requesterId: message.authorId, controller });
    this.#turnEvent(message, turnId, 'ACTIVE');
    let ending: TurnEnding;
    try {
      ending = await work();
    } finally {
      this.#running.delete(channelKey(message));
    }
    if (ending.status === 'untouched') return;
    this.#turnEvent(message, turnId, ending.status);
    if (ending.message === undefined) return;
    if (ending.status === 'TERMINAL_COMPLETED') {
      await deps.history.append(channelKey(message), { role: 'assistant', text: ending.message });
      const reply = { channelId: message.channelId, inReplyTo: message.messageId, turn: turnId, text: ending.message, partsDelivered: 0, redelivery: false };
      deps.faults.reach('after_completion', 0);
      await deliverReply(deps.store, deps.sink, reply, deps.logger);
      await fitHistoryToBudget(deps.history, channelKey(message), deps.config.chat.history_max_chars, deps.config.chat.compaction, summarizeThrough(deps.provider, deps.recovery));
      return;
    }
    this.#notice(message, turnId, noticeFor(ending.status), ending.message);
    if (ending.suspendedFor === 'capacity' && deps.config.turn_state.auto_resume && deps.provider !== undefined && deps.store !== undefined) {
      const channel = channelKey(message);
      this.#suspendedMessages.set(turnId, message);
      this.#auto.watch({ turnId, channel, revision: await deps.history.revision(channel) }, deps.recovery.breakers.get(deps.provider.provider, deps.provider.model));
    }
  }

  #stop(message: InboundMessage): void {
    const running = this.#running.get(channelKey(message));
    if (running === undefined) return this.#notice(message, null, 'status', 'Nothing is running in this channel.');
    if (running.requesterId !== message.authorId && !isAdmin(this.deps.config.permissions, message.authorId)) {
      return this.#notice(message, running.turnId, 'status', 'Only the person who asked, or an admin, can stop this.');
    }
    running.controller.abort();
  }

  async #status(message: InboundMessage): Promise<void> {
    const running = this.#running.get(channelKey(message));
    const suspended = (await this.deps.store?.listSuspended({ source: message.source, channelId: message.channelId })) ?? [];
    const lines = [
      running === undefined ? 'Nothing is running in this channel.' : `Working on a request (turn ${running.turnId}).`,
      suspended.length === 0 ? 'No saved requests are waiting.' : `${suspended.length} saved request${suspended.length === 1 ? '' : 's'} can be continued with \`resume\`.`,
    ];
    this.#notice(message, running?.turnId ?? null, 'status', lines.join('\n'));
  }

  #notice(message: InboundMessage, turn: string | null, notice: NoticeKind, text: string): void {
    this.deps.sink.post({ type: 'message', channelId: message.channelId, inReplyTo: message.messageId, turn, kind: 'notice', notice, text });
  }

  #turnEvent(message: InboundMessage, turn: string, status: TurnStatus): void {
    this.deps.sink.post({ type: 'turn', channelId: message.channelId, turn, status });
  }
}

function noticeFor(status: TurnStatus): NoticeKind {
  switch (status) {
    case 'SUSPENDED':
      return 'suspended';
    case 'TERMINAL_CANCELLED':
      return 'cancelled';
    case 'TERMINAL_REJECTED':
      return 'manual_resolution';
    case 'TERMINAL_EXPIRED':
      return 'expired';
    case 'ACTIVE':
    case 'TERMINAL_COMPLETED':
    case 'TERMINAL_FAILED':
      return 'failed';
    default: {
      const unreachable: never = status;
      return unreachable;
    }
  }
}

function channelKey(message: InboundMessage): string {
  return `${message.source}:${message.channelId}`;
}
