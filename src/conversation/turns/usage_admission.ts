import { isAdmin } from '../../tools/permissions.js';
import type { UsageAdmission, UsageAdmissionRequest, UsageRefusal } from '../../turn_state/usage_store.js';
import { overrideAt } from '../channel_overrides.js';
import type { ConversationSettings } from '../chat_settings.js';
import type { ConversationDeps } from '../conversation_deps.js';
import { limitsHere, turnLimits, windowLimits, type TurnLimits } from '../limits_settings.js';
import type { ScopeLimit } from '../../turn_state/usage_store.js';
import { limitRefusedText } from '../notices/limit_texts.js';
import type { InboundMessage } from '../transport.js';

/** The limits a message is held to where it was said (DESIGN §10.1): the windowed ones at admission, the per-turn ones before each model call. */
export interface LimitsInForce {
  readonly window: readonly ScopeLimit[];
  readonly turn: TurnLimits;
}

/**
 * The limits in force for `message`: `limits`, each scope replaced by the matching `overrides`
 * entry's where it sets one; none for an admin while `limits.admins_exempt` holds.
 */
export function limitsFor(config: Pick<ConversationSettings, 'limits' | 'overrides' | 'permissions'>, message: Pick<InboundMessage, 'authorId' | 'channelId' | 'place'>): LimitsInForce {
  if (config.limits.admins_exempt && isAdmin(config.permissions, message.authorId)) return { window: [], turn: {} };
  const limits = limitsHere(config.limits, overrideAt(config.overrides, message.channelId, message.place)?.override.limits);
  return { window: windowLimits(limits), turn: turnLimits(limits) };
}

/**
 * Counts `message`'s turn against its user, channel and server (DESIGN §10.1), or refuses it: then
 * the words that tell its author which limit it reached and when it resets, and the refusal is
 * logged. No model is asked for a refused message. The store decides between processes.
 */
export async function usageRefusal(message: InboundMessage, deps: Pick<ConversationDeps, 'config' | 'usage' | 'clock' | 'logger'>): Promise<string | undefined> {
  const admission: UsageAdmission = await deps.usage.admit(usageRequest(message, deps.config));
  return admission.kind === 'counted' ? undefined : refusalText(message, admission, deps);
}

/** What counting `message`'s turn asks of the store: its owner, and the windowed limits in force where it was said. */
export function usageRequest(message: InboundMessage, config: Pick<ConversationSettings, 'limits' | 'overrides' | 'permissions'>): UsageAdmissionRequest {
  const identity = { source: message.source, channelId: message.channelId, messageId: message.messageId };
  const owner = { source: message.source, userId: message.authorId, channelId: message.channelId, serverId: message.place?.guildId };
  return { identity, owner, limits: limitsFor(config, message).window };
}

/** The words that tell `message`'s author which limit `refusal` names and when it resets; the refusal is logged. */
export function refusalText(message: InboundMessage, refusal: UsageRefusal, deps: Pick<ConversationDeps, 'clock' | 'logger'>): string {
  const { limit, used, resetsAt } = refusal;
  deps.logger.info(
    { channel: message.channelId, requester: message.authorId, message: message.messageId, scope: limit.scope, limit: limit.kind, max: limit.max, used, resets_at: resetsAt },
    `a message was refused: its ${limit.scope} reached ${limit.kind} ${limit.max}`,
  );
  return limitRefusedText(limit, resetsAt, deps.clock.now());
}
