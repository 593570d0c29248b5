import type { Config } from '../config/schema.js';
import type { Clock } from '../core/clock.js';
import type { Logger } from '../core/logger.js';
import type { ToolCatalog } from '../tools/catalog.js';
import { permittedTools } from '../tools/permissions.js';
import type { TurnStore } from '../turn_state/turn_store.js';
import type { TurnRecord } from '../turn_state/turn_types.js';
import { turnDefaults } from './admission.js';
import { restoreFromLog } from '../engine/restore_from_log.js';
import { storeDurability } from '../engine/durability.js';
import type { InboundMessage, MessageSource, NoticeKind } from './transport.js';
import { runTurn, type RunDeps } from '../engine/run_turn.js';
import { rejectUnresumable, type TurnEnding } from '../engine/terminal_writer.js';
import { isInvalidCheckpointError } from '../engine/turn_codec.js';

const TRIGGER = /^(?:resume|continue|\/resume)(?:\s+(\S+))?$/i;

export interface ResumeDeps {
  readonly config: Config;
  readonly store: TurnStore;
  readonly source: MessageSource;
  readonly catalog: () => ToolCatalog;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly engine: RunDeps;
}

/** What a possible resume trigger came to. */
export type ResumeAttempt =
  | { readonly kind: 'not_a_resume' }
  | { readonly kind: 'notice'; readonly turn: string | null; readonly notice: NoticeKind; readonly text: string }
  | { readonly kind: 'resumed'; readonly turn: TurnRecord; readonly continued: Promise<TurnEnding> };

/**
 * Explicit resume (DESIGN §9): `resume`, `continue` or `/resume [turn]` from a turn's requester in
 * its channel. Once the words match preserved work they never fall through into a fresh turn:
 * every failure is a notice; the `/resume` command never does, even with nothing saved. The original message is re-checked, the payload restored and
 * validated and the tools re-derived before the resume lease is taken; one resumer wins.
 */
export async function attemptResume(message: InboundMessage, signal: AbortSignal, deps: ResumeDeps): Promise<ResumeAttempt> {
  const match = TRIGGER.exec(message.text.trim());
  if (match === null) return { kind: 'not_a_resume' };
  const { store } = deps;
  const channel = { source: message.source, channelId: message.channelId };
  const wanted = match[1];
  const suspended = await store.listSuspended(channel);
  const mine = suspended.filter((turn) => turn.requesterId === message.authorId && (wanted === undefined || turn.turnId === wanted));
  const turn = mine[0];
  if (turn === undefined) {
    const latest = wanted === undefined ? await store.latestTurnOf(channel, message.authorId) : await store.getTurn(wanted);
    if (latest?.status === 'TERMINAL_EXPIRED' && latest.requesterId === message.authorId) {
      return { kind: 'notice', turn: latest.turnId, notice: 'expired', text: `That request waited longer than ${deps.config.turn_state.resume_ttl_hours} hours and can no longer be resumed.` };
    }
    if (suspended.some((other) => other.requesterId !== message.authorId)) {
      return { kind: 'notice', turn: null, notice: 'rejected', text: 'Only the person who asked can resume their saved request.' };
    }
    if (wanted !== undefined) return { kind: 'notice', turn: null, notice: 'rejected', text: `There is no saved request ${wanted} of yours in this channel.` };
    // The words `resume` and `continue` may just be conversation; the command never is.
    return message.text.trim().startsWith('/') ? { kind: 'notice', turn: null, notice: 'status', text: 'You have no saved request in this channel to resume.' } : { kind: 'not_a_resume' };
  }
  try {
    return await resume(turn, message, signal, deps);
  } catch (error) {
    deps.logger.error({ err: error, turn: turn.turnId }, 'resume failed');
    return { kind: 'notice', turn: turn.turnId, notice: 'failed', text: 'I could not resume that request because of an internal error. It is still saved; try `resume` again later.' };
  }
}

async function resume(turn: TurnRecord, message: InboundMessage, signal: AbortSignal, deps: ResumeDeps): Promise<ResumeAttempt> {
  const { store, config } = deps;
  const resumeTtlMs = config.turn_state.resume_ttl_hours * 3_600_000;
  if (deps.clock.now() - turn.lastProgressAt >= resumeTtlMs) {
    await store.sweepRetention();
    return { kind: 'notice', turn: turn.turnId, notice: 'expired', text: `That request waited longer than ${config.turn_state.resume_ttl_hours} hours and can no longer be resumed.` };
  }
  const original = await deps.source.fetchOriginal(turn);
  if (original === undefined || original.authorId !== turn.requesterId || original.digest !== turn.messageDigest) {
    await rejectUnresumable(store, turn, 'the original message was edited or deleted');
    return { kind: 'notice', turn: turn.turnId, notice: 'rejected', text: 'Your original message was edited or deleted since, so I will not continue the old request. Please ask again.' };
  }
  const resumable = await store.loadResumable(turn.turnId);
  if (resumable === undefined || resumable.turn.status !== 'SUSPENDED') {
    return { kind: 'notice', turn: turn.turnId, notice: 'in_progress', text: 'That request is already being continued.' };
  }
  const requester = { userId: message.authorId, roleIds: message.authorRoleIds };
  const reconstructed = {
    turnId: turn.turnId,
    identity: turn.identity,
    requester,
    tools: permittedTools(deps.catalog().tools, config.permissions, requester, message.channelId),
    signal,
    logger: deps.logger.child({ turn: turn.turnId }),
  };
  let restored;
  try {
    restored = restoreFromLog(resumable, reconstructed, turnDefaults(config));
  } catch (error) {
    if (!isInvalidCheckpointError(error)) throw error;
    deps.logger.warn({ turn: turn.turnId, problems: error.problems }, 'a saved turn is not usable');
    await rejectUnresumable(store, resumable.turn, 'invalid saved state');
    return { kind: 'notice', turn: turn.turnId, notice: 'rejected', text: 'The saved state of that request is not usable, so I will not continue it. Please ask again.' };
  }
  const claim = await store.claimResume(turn.turnId, resumable.turn.generation);
  if (!claim.won) return { kind: 'notice', turn: turn.turnId, notice: 'in_progress', text: 'Another resume already picked that request up.' };
  const continued = runTurn(restored.turn, { kind: 'resumed', log: restored.log }, storeDurability(store, claim.lease), deps.engine);
  return { kind: 'resumed', turn: claim.turn, continued };
}

/** The console's messages can be neither edited nor deleted: the original is always as admitted. */
export const consoleMessageSource: MessageSource = {
  fetchOriginal: (turn) => Promise.resolve({ authorId: turn.requesterId, digest: turn.messageDigest }),
};
