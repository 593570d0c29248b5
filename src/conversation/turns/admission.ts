import type { ConversationSettings } from '../chat_settings.js';
import { awaitingApprovalAtAdmissionText } from '../notices/approval_texts.js';
import type { Clock } from '../../core/clock.js';
import type { Logger } from '../../core/logger.js';
import { NO_TRACER, type TraceRef, type Tracer } from '../../core/tracing.js';
import { TurnTrace } from '../../engine/turn_trace.js';
import type { ToolCatalog } from '../../tools/catalog.js';
import type { TurnStore } from '../../turn_state/turn_store.js';
import type { ChatTurn } from '../../engine/chat_turn.js';
import { freshChatTurn, initialCheckpoint, type TurnDefaults } from '../../engine/fresh_turn.js';
import type { Message } from '../../llm/protocol.js';
import { storeDurability, type TurnDurability } from '../../engine/durability.js';
import type { RecoveryRuntime } from '../../recovery/generate_with_recovery.js';
import type { HistoryEntry } from '../../turn_state/history_store.js';
import { channelKey, messageDigest, type InboundMessage, type NoticeKind } from '../transport.js';
import type { MessageAttachment } from '../history/message_attachment.js';
import type { ReconstructedParts } from '../../engine/turn_codec.js';
import { userContent } from '../history/user_content.js';
import { awaitingAtAdmissionText, TEXTS } from '../notices/texts.js';
import { assertNever } from '../../core/assert_never.js';
import { overrideAt, toolsOffered, type AppliedOverride } from '../channel_overrides.js';
import { refusalText, usageRequest } from './usage_admission.js';
import { filledPrompt, type PromptFilling } from '../prompt_placeholders.js';

export interface AdmissionDeps {
  readonly config: ConversationSettings;
  readonly store: TurnStore;
  readonly catalog: () => ToolCatalog;
  /** Its `now()` fills the prompt's `{date}` and `{time}`. */
  readonly clock: Clock;
  readonly logger: Logger;
  readonly tracer?: Tracer;
  /** Its deadline bounds each model call, stored with the write before the call (DESIGN §7.3). */
  readonly recovery: Pick<RecoveryRuntime, 'settings'>;
}

/**
 * The prompt and caps a new turn gets from the configuration in force: `chat`'s, shaped by the
 * `overrides` entry `here`; the prompt's placeholders filled from `filling` (the time of the
 * admission, the names of the message's place and author).
 */
export function turnDefaults(config: ConversationSettings, filling: PromptFilling, here?: AppliedOverride): TurnDefaults {
  return {
    systemPrompt: filledPrompt(here?.override.system_prompt ?? config.chat.system_prompt, filling),
    budgets: { maxIterations: here?.override.max_iterations ?? config.chat.max_iterations, maxToolCalls: config.chat.max_tool_calls, maxContinuations: config.chat.max_continuations },
  };
}

/** The user's message as the model sees it: its author's name (when given) and text, then the attachments as `llm.vision` lets the model see them. */
export function userMessage(text: string, config: ConversationSettings, attachments: readonly MessageAttachment[] = [], author?: string): Message {
  return { role: 'user', content: userContent(text, attachments, config.llm.vision, author) };
}

/** A turn that has done nothing yet: its transcript is the user's message. */
export function newChatTurn(parts: ReconstructedParts, text: string, config: ConversationSettings, filling: PromptFilling, attachments: readonly MessageAttachment[] = []): ChatTurn {
  return freshChatTurn(parts, turnDefaults(config, filling), [userMessage(text, config, attachments)]);
}

/** The user's message as its channel's history keeps it: its author, named as the transport named them, and its files. */
export function userHistoryEntry(message: InboundMessage): HistoryEntry {
  const entry = { role: 'user', text: message.text, authorId: message.authorId, messageId: message.messageId } as const;
  const named = message.names === undefined ? entry : { ...entry, authorName: message.names.user };
  return message.attachments === undefined ? named : { ...named, attachments: message.attachments };
}

/** A new turn ready to run, or the notice that says why this message will not run fresh. */
export type MessageAdmission =
  | { readonly kind: 'admitted'; readonly turn: ChatTurn; readonly durability: TurnDurability; readonly trace: TurnTrace }
  | { readonly kind: 'notice'; readonly turn: string | null; readonly notice: NoticeKind; readonly text: string };

/**
 * Admission (DESIGN §8): a message whose identity the store already holds never runs fresh; a new
 * one becomes a turn over `history` with the prompt, budgets and tools of where it was said (the
 * `overrides` entry that matches there, else `chat`; the tools its requester may use), its prompt
 * filled in now with the time and the message's names and kept as filled when it is resumed, stored
 * with the user's message (its author named, DESIGN §4.2) and that history in one transaction that
 * also takes the message out of the inbox (`inboxId`), counts the turn against its owner's limits
 * (a message a limit refuses is answered with the limit instead, DESIGN §10.1), adds the message to its channel's history and
 * stores the first model call's recovery deadline (DESIGN §7.3); the turn's later checkpoints store
 * the deadline of the call after them, and its completion adds the reply to the history. With
 * durability off the store keeps nothing (the caller adds the message to the history),
 * and the turn runs all the same. The turn's first run is traced under `received`, the span of the
 * message, and its trace is kept with the turn (DESIGN §10.3).
 */
export async function admitMessage(
  message: InboundMessage,
  history: readonly Message[],
  inboxId: number | undefined,
  signal: AbortSignal,
  deps: AdmissionDeps,
  received?: TraceRef,
): Promise<MessageAdmission> {
  const { config } = deps;
  const identity = { source: message.source, channelId: message.channelId, messageId: message.messageId };
  const requester = { userId: message.authorId, roleIds: message.authorRoleIds };
  const transcript = [...history, userMessage(message.text, config, message.attachments, message.names?.user)];
  const here = overrideAt(config.overrides, message.channelId, message.place);
  const tools = toolsOffered(deps.catalog().tools, config, requester, message.channelId, here, await deps.store.approvalRules({ source: message.source, channelId: message.channelId }));
  const defaults = turnDefaults(config, { now: deps.clock.now(), names: message.names }, here);
  const trace = TurnTrace.start(deps.tracer ?? NO_TRACER, { identity, requesterId: message.authorId, startedBy: 'message', received });
  const fresh = (turnId: string): ChatTurn =>
    freshChatTurn({ turnId, identity, requester, tools, signal, logger: deps.logger.child({ turn: turnId, channel: message.channelId, ...trace.logFields }), trace }, defaults, [...transcript]);
  const start = initialCheckpoint(defaults, transcript);
  const { traceparent } = trace;
  const channel = channelKey(message);
  const budgetMs = deps.recovery.settings.deadlineMs;
  const deadlineAt = deps.clock.now() + budgetMs;
  const admission = await deps.store.admit({
    identity,
    requesterId: message.authorId,
    messageDigest: messageDigest(message.text),
    start,
    ...(inboxId === undefined ? {} : { inboxId }),
    ...(traceparent === undefined ? {} : { trace: traceparent }),
    riders: { history: { channel, entry: userHistoryEntry(message) }, deadlineAt },
    ...(deps.store.durable ? { usage: usageRequest(message, config) } : {}),
  });
  if (admission.disposition !== 'admitted') trace.refused(admission.disposition);
  switch (admission.disposition) {
    case 'admitted':
      trace.named(admission.lease.turnId);
      return {
        kind: 'admitted',
        turn: fresh(admission.lease.turnId),
        durability: storeDurability(deps.store, admission.lease, { replyJoins: channel, deadline: { clock: deps.clock, budgetMs }, armedAt: deadlineAt }),
        trace,
      };
    case 'already_processed':
      return { kind: 'notice', turn: admission.turn.turnId, notice: 'already_processed', text: TEXTS.alreadyAnswered };
    case 'in_progress':
      return { kind: 'notice', turn: admission.turn.turnId, notice: 'in_progress', text: TEXTS.alreadyWorking };
    case 'resumable':
      return { kind: 'notice', turn: admission.turn.turnId, notice: 'interrupted', text: TEXTS.interrupted };
    case 'awaiting_resolution':
      return { kind: 'notice', turn: admission.turn.turnId, notice: 'manual_resolution', text: awaitingAtAdmissionText(admission.turn.turnId) };
    case 'awaiting_approval':
      return { kind: 'notice', turn: admission.turn.turnId, notice: 'in_progress', text: awaitingApprovalAtAdmissionText(admission.turn.turnId) };
    case 'limited':
      return { kind: 'notice', turn: null, notice: 'limited', text: refusalText(message, admission.refusal, deps) };
    case 'store_unavailable':
      return { kind: 'notice', turn: null, notice: 'failed', text: TEXTS.storeUnavailable };
    default:
      return assertNever(admission);
  }
}
