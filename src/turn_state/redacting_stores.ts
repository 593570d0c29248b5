/**
 * The configured secrets kept out of everything the stores write (DESIGN §7.6): a wrapper around
 * each port that redacts every secret value, wherever it appears inside a string, from what it is
 * asked to persist — turn rows (suspension and failure reasons), the transcript, the ledger, the
 * checkpoints, the replies, the inbox, the history, the memory notes, the channels' chosen
 * models and the models named in the usage, and so the blobs made from them.
 * Reads pass through: what was written redacted reads back redacted.
 */
import type { Redactor, SecretValues } from '../core/secret_values.js';
import type { HistoryEntry, HistoryStore } from './history_store.js';
import type { LeaseRiders } from './lease_riders.js';
import type { OpMove } from './ledger_types.js';
import type { MemoryStore } from './memory_store.js';
import type { ModelChoiceStore } from './model_choice_store.js';
import type { OperatorStore } from './operator_store.js';
import type { ReplyProgress } from './reply_types.js';
import type { TurnStore } from './turn_store.js';
import type { ModelCallUsage, UsageStore } from './usage_store.js';

/** `store`, writing nothing that holds one of `secrets`. */
export function redactingTurnStore(store: TurnStore, secrets: SecretValues): TurnStore {
  return {
    ...store,
    admit: (request) =>
      store.admit({
        ...request,
        start: { transcript: secrets.redactDeep(request.start.transcript), state: secrets.redactDeep(request.start.state) },
        ...(request.riders === undefined ? {} : { riders: redactRiders(request.riders, secrets) }),
      }),
    acceptInbound: (record) => store.acceptInbound({ ...record, message: secrets.redactDeep(record.message) }),
    recordModelTurn: (lease, record, riders) =>
      store.recordModelTurn(lease, { ...record, assistant: secrets.redactDeep(record.assistant), intents: secrets.redactDeep(record.intents) }, riders && redactRiders(riders, secrets)),
    moveOp: (lease, key, move) => store.moveOp(lease, key, redactMove(move, secrets)),
    checkpoint: (lease, write, riders) =>
      store.checkpoint(
        lease,
        {
          ...write,
          append: secrets.redactDeep(write.append),
          state: secrets.redactDeep(write.state),
          settle: (write.settle ?? []).map(({ key, move }) => ({ key, move: redactMove(move, secrets) })),
        },
        riders && redactRiders(riders, secrets),
      ),
    suspend: (lease, reason, riders) => store.suspend(lease, secrets.redact(reason), riders && redactRiders(riders, secrets)),
    finish: (lease, status, reason, riders) => store.finish(lease, status, reason === undefined ? undefined : secrets.redact(reason), riders && redactRiders(riders, secrets)),
    complete: (lease, reply, writtenBy, riders) => store.complete(lease, secrets.redact(reply), writtenBy, riders && redactRiders(riders, secrets)),
    recordReplyDelivery: (turnId, progress) => store.recordReplyDelivery(turnId, redactProgress(progress, secrets)),
    awaitResolution: (lease, calls, reason) => store.awaitResolution(lease, calls, secrets.redact(reason)),
    answerApproval: (answer) => store.answerApproval({ ...answer, note: answer.note === null ? null : secrets.redact(answer.note) }),
    rejectSuspended: (turnId, expectedGeneration, reason) => store.rejectSuspended(turnId, expectedGeneration, secrets.redact(reason)),
  };
}

/** `operator`, recording no verdict text and no approval's note that holds one of `secrets`. */
export function redactingOperatorStore(operator: OperatorStore, secrets: Redactor): OperatorStore {
  return {
    ...operator,
    resolveCall: (request) => operator.resolveCall({ ...request, text: request.text === null ? null : secrets.redact(request.text) }),
    answerApproval: (answer) => operator.answerApproval({ ...answer, note: answer.note === null ? null : secrets.redact(answer.note) }),
  };
}

/** `history`, appending no entry or summary that holds one of `secrets`. */
export function redactingHistoryStore(history: HistoryStore, secrets: SecretValues): HistoryStore {
  return {
    ...history,
    append: (channel, entry) => history.append(channel, redactEntry(entry, secrets)),
    compact: (channel, compaction) => history.compact(channel, compaction.summary === undefined ? compaction : { ...compaction, summary: secrets.redact(compaction.summary) }),
    edit: (channel, messageId, text) => history.edit(channel, messageId, secrets.redact(text)),
  };
}

/** An entry with its text, its author's name and the text of its attached text files redacted. */
function redactEntry(entry: HistoryEntry, secrets: SecretValues): HistoryEntry {
  const redacted = { ...entry, text: secrets.redact(entry.text), ...(entry.authorName === undefined ? {} : { authorName: secrets.redact(entry.authorName) }) };
  if (entry.attachments === undefined) return redacted;
  return { ...redacted, attachments: entry.attachments.map((attachment) => (attachment.kind === 'text' ? { ...attachment, text: secrets.redact(attachment.text) } : attachment)) };
}

/** `memory`, keeping no note that holds one of `secrets`. */
export function redactingMemoryStore(memory: MemoryStore, secrets: SecretValues): MemoryStore {
  return { ...memory, remember: (request) => memory.remember({ ...request, text: secrets.redact(request.text) }) };
}

/** `models`, keeping no choice whose model or chooser holds one of `secrets`. */
export function redactingModelChoiceStore(models: ModelChoiceStore, secrets: Redactor): ModelChoiceStore {
  return { ...models, choose: (channel, model, chosenBy) => models.choose(channel, secrets.redact(model), secrets.redact(chosenBy)) };
}

function redactMove(move: OpMove, secrets: SecretValues): OpMove {
  if ('error' in move) return { ...move, error: secrets.redact(move.error) };
  if ('result' in move) return { ...move, result: secrets.redact(move.result) };
  return move;
}

function redactProgress(progress: ReplyProgress, secrets: SecretValues): ReplyProgress {
  return progress.kind === 'abandoned' ? { ...progress, reason: secrets.redact(progress.reason) } : progress;
}

/** `usage`, counting no call under a model name that holds one of `secrets`. */
export function redactingUsageStore(usage: UsageStore, secrets: Redactor): UsageStore {
  return {
    ...usage,
    record: (identity, requesterId, calls) => usage.record(identity, requesterId, redactCalls(calls, secrets)),
  };
}

function redactCalls(calls: readonly ModelCallUsage[], secrets: Redactor): ModelCallUsage[] {
  return calls.map((call) => ({ ...call, model: secrets.redact(call.model) }));
}

/** What rides with a turn's write, redacted as the history's and the usage's own writes are. */
function redactRiders(riders: LeaseRiders, secrets: SecretValues): LeaseRiders {
  const { usage, history } = riders;
  return {
    ...riders,
    ...(usage === undefined ? {} : { usage: { ...usage, calls: redactCalls(usage.calls, secrets) } }),
    ...(history === undefined ? {} : { history: { ...history, entry: redactEntry(history.entry, secrets) } }),
  };
}
