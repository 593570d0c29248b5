import { assertNever } from '../core/assert_never.js';
import type { Logger } from '../core/logger.js';
import type { EffectClass } from './ledger_types.js';
import { scrubSecrets } from './scrub.js';
import type { UncertainCall } from './turn_store.js';

/**
 * The WARN line for a call whose outcome just became OUTCOME_UNKNOWN, whether the running turn
 * found it so or a sweep did after its owner died: whose call it was, and what happens to it next
 * by its effect class (DESIGN §6). Its input is the scrubbed copy the ledger keeps.
 */
export function warnOutcomeUnknown(logger: Logger, call: UncertainCall): void {
  logger.warn(
    {
      turn: call.turnId,
      channel: call.channelId,
      requester: call.requesterId,
      tool: call.toolName,
      effect: call.effect,
      input: scrubSecrets(call.input),
      call: call.toolCallId,
      step: call.step,
      error: call.error,
    },
    `the outcome of tool call ${call.toolCallId} (${call.toolName}) is unknown: ${whatNext(call.effect)}`,
  );
}

function whatNext(effect: EffectClass): string {
  switch (effect) {
    case 'read':
      return 'it only reads, so it runs again when the turn goes on';
    case 'idempotent':
      return 'it is idempotent, so it is sent again with the same idempotency key when the turn goes on';
    case 'write':
      return 'it is a write, so it is never run again by itself: an operator must check whether it took effect and resolve it';
    default:
      return assertNever(effect);
  }
}
