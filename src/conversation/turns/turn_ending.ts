import type { ConversationSettings } from '../chat_settings.js';
import type { Logger } from '../../core/logger.js';
import type { FaultInjector } from '../../engine/fault_points.js';
import type { TurnEnding } from '../../engine/terminal_writer.js';
import { shortTurnId } from '../../engine/call_label.js';
import type { AwaitedCall } from '../../engine/turn_outcome.js';
import type { ReplyStore } from '../../turn_state/turn_store.js';
import type { ApprovalStore } from '../../turn_state/approval_store.js';
import type { HistoryStore } from '../../turn_state/history_store.js';
import type { HistoryFitting } from '../history/history_fitting.js';
import { channelKey, type InboundMessage, postNotice, type ReplySink } from '../transport.js';
import { endingNotice, stoppedText, thoughtText, type FinishedOnStop, type NoticedEnding } from '../notices/texts.js';
import { turnLimitText } from '../notices/limit_texts.js';
import { deliverReply, replyAuthorship, replyNotes } from './reply_delivery.js';
import { askForApprovals } from '../operators/approvals.js';

export interface EndingDeps {
  readonly config: ConversationSettings;
  readonly store: ReplyStore & Pick<ApprovalStore, 'noteApprovalMessage'> & { readonly durable: boolean };
  readonly history: HistoryStore;
  readonly sink: ReplySink;
  readonly logger: Logger;
  readonly faults: FaultInjector;
  /** Fits the history to its budget after the reply, off the channel's lane. */
  readonly fitting: Pick<HistoryFitting, 'request'>;
}

/**
 * What follows a turn's end in the conversation (DESIGN §8): a completed turn's reply joins the
 * history and is delivered, then the history's fitting to its budget starts (it does not hold up
 * the channel); any other ending is told with its notice, a stopped turn's with what the calls that
 * ran on after /stop came to (`run.finishedOnStop`). With `chat.show_reasoning: summary`, a reply
 * whose run reasoned (`run.thoughtMs`) says so below it. Resolves when the reply is delivered or given up.
 */
export async function deliverEnding(message: InboundMessage, turnId: string, ending: TurnEnding, deps: EndingDeps, run: RunReport = NOTHING_TO_REPORT): Promise<void> {
  if (ending.status === 'untouched') return;
  // The store still holds the turn as it was: no status changed, so none is announced.
  if (ending.status !== 'unrecorded') deps.sink.post({ type: 'turn', channelId: message.channelId, turn: turnId, status: ending.status });
  if (ending.status === 'AWAITING_RESOLUTION') warnAwaitingVerdict(message, ending.awaiting, deps.logger);
  if (ending.status === 'TERMINAL_CANCELLED' && run.finishedOnStop.length > 0) return tellAndKeep(message, turnId, 'cancelled', stoppedText(run.finishedOnStop), deps);
  if (ending.status === 'TERMINAL_FAILED' && ending.reason === 'turn_limit') return tellAndKeep(message, turnId, 'limited', turnLimitText(ending.limit, ending.done), deps);
  if (ending.status === 'AWAITING_APPROVAL') return askForApprovals(message, ending.asking, deps);
  if (ending.status !== 'TERMINAL_COMPLETED') return tellEnding(message, turnId, ending, deps);
  const { thoughtMs } = run;
  const channel = channelKey(message);
  // A durable completion added the reply to the history in its own transaction.
  if (!deps.store.durable) await deps.history.append(channel, { role: 'assistant', text: ending.reply });
  const reply = {
    channelId: message.channelId,
    inReplyTo: message.messageId,
    turn: turnId,
    text: ending.reply,
    partsDelivered: 0,
    redelivery: false,
    ...replyNotes(replyAuthorship(ending.writtenBy, deps.config.llm.fallback_note), deps.config.chat.show_reasoning === 'summary' && thoughtMs > 0 ? thoughtText(thoughtMs) : undefined),
  };
  deps.faults.reach('after_completion', 0);
  await deliverReply(deps.store, deps.sink, reply, deps.logger);
  deps.fitting.request(channel);
}

/** What a run of a turn reports besides its ending: how long its model reasoned, and what the calls that ran on after /stop came to. */
export interface RunReport {
  readonly thoughtMs: number;
  readonly finishedOnStop: readonly FinishedOnStop[];
}

const NOTHING_TO_REPORT: RunReport = { thoughtMs: 0, finishedOnStop: [] };

/**
 * A turn stopped — by /stop after calls that ran on to their end, or by a per-turn limit — whose
 * requester is told what its calls came to, and the channel's history keeps the same words as the
 * bot's, so that the model knows next turn what was done.
 */
async function tellAndKeep(message: InboundMessage, turnId: string, notice: 'cancelled' | 'limited', text: string, deps: EndingDeps): Promise<void> {
  postNotice(deps.sink, message, turnId, notice, text);
  try {
    await deps.history.append(channelKey(message), { role: 'assistant', text });
  } catch (error) {
    deps.logger.error({ err: error, turn: turnId, channel: message.channelId }, 'the history could not keep what the calls of a stopped request came to');
  }
}

function tellEnding(message: InboundMessage, turnId: string, ending: NoticedEnding, deps: Pick<EndingDeps, 'config' | 'sink'>): void {
  const { notice, text } = endingNotice(ending, deps.config.turn_state.continue_after_restart);
  postNotice(deps.sink, message, turnId, notice, text);
}

/** One WARN line per call that awaits a verdict, with what an operator needs and the command to run (DESIGN §9.1). */
function warnAwaitingVerdict(message: InboundMessage, calls: readonly AwaitedCall[], logger: Logger): void {
  for (const { op, label } of calls) {
    const command = `holdfast turns resolve ${shortTurnId(op.turnId)} ${label} --applied [--result TEXT] | --not-applied [--note TEXT]`;
    logger.warn(
      { turn: op.turnId, channel: message.channelId, requester: message.authorId, tool: op.toolName, effect: op.effect, call: label, input: op.input, command },
      `a ${op.toolName} call may or may not have taken effect: it awaits an operator's verdict (${command})`,
    );
  }
}
