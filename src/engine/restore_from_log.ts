import type { ResumableTurn } from '../turn_state/turn_store.js';
import type { ChatTurn } from './chat_turn.js';
import { freshChatTurn, type TurnDefaults } from './fresh_turn.js';
import { guardOf } from './guard_messages.js';
import { InvalidCheckpointError, restoreChatTurn, validateTranscript, type ReconstructedParts } from './turn_codec.js';
import { TurnLog } from './turn_log.js';

/**
 * Restores a turn from its latest checkpoint (or, with none left, from a fresh state) and the log
 * of every transcript and ledger row written after it (DESIGN §7.4), for the loop to replay.
 * Validation is complete before anything else.
 * @throws {InvalidCheckpointError} when the payload or the transcript is not one this engine wrote.
 */
export function restoreFromLog(resumable: ResumableTurn, reconstructed: ReconstructedParts, defaults: TurnDefaults): { turn: ChatTurn; log: TurnLog } {
  const problems = validateTranscript(resumable.transcript);
  if (problems.length > 0) throw new InvalidCheckpointError(problems);
  const rows = [...resumable.transcript];
  const { checkpoint } = resumable;
  if (checkpoint !== undefined) {
    if (checkpoint.transcriptLength > rows.length) throw new InvalidCheckpointError([`checkpoint covers ${checkpoint.transcriptLength} rows but the transcript has ${rows.length}`]);
    const turn = restoreChatTurn(checkpoint.state, rows.slice(0, checkpoint.transcriptLength), reconstructed);
    // The row's deadline is the latest one written; the checkpoint's may be older.
    turn.recoveryDeadlineAt = resumable.turn.recoveryDeadlineAt ?? turn.recoveryDeadlineAt;
    return { turn, log: new TurnLog(rows.slice(checkpoint.transcriptLength), resumable.ops) };
  }
  // Without a checkpoint the turn's own work begins after its user message: the last user message that no guard injected.
  const start = rows.findLastIndex((message) => message.role === 'user' && guardOf(message) === undefined) + 1;
  const turn = freshChatTurn(reconstructed, defaults, rows.slice(0, start), resumable.turn.recoveryDeadlineAt);
  return { turn, log: new TurnLog(rows.slice(start), resumable.ops) };
}
