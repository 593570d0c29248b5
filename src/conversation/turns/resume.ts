import type { ConversationSettings } from '../chat_settings.js';
import type { Clock } from '../../core/clock.js';
import type { Logger } from '../../core/logger.js';
import { NO_TRACER, type TraceRef, type Tracer } from '../../core/tracing.js';
import { TurnTrace } from '../../engine/turn_trace.js';
import { storeDurability } from '../../engine/durability.js';
import { restoreFromLog } from '../../engine/restore_from_log.js';
import { runTurn, type RunDeps } from '../../engine/run_turn.js';
import { rejectUnresumable, type TurnEnding } from '../../engine/terminal_writer.js';
import { isInvalidCheckpointError } from '../../engine/turn_codec.js';
import type { ToolCatalog } from '../../tools/catalog.js';
import type { OperatorStore } from '../../turn_state/operator_store.js';
import type { ResumableTurn, TurnStore } from '../../turn_state/turn_store.js';
import { APPROVALS_ANSWERED, type TurnRecord, type TurnStatus } from '../../turn_state/turn_types.js';
import { isUndecodableTurnError } from '../../turn_state/errors.js';
import { claimOnRoute, routeOf } from '../../recovery/model_route.js';
import { turnDefaults } from './admission.js';
import { overrideAt, toolsOffered } from '../channel_overrides.js';
import { resolvedNotice, stillAwaitingNotice } from '../operators/resolution_notices.js';
import { awaitingApprovalAtAdmissionText } from '../notices/approval_texts.js';
import { ambiguousSavedText, heldElsewhereText, noSuchSavedText, resumeExpiredText, TEXTS } from '../notices/texts.js';
import { turnStoreTimings } from '../../turn_state/store_options.js';
import { channelKey, type InboundMessage, type MessageSource, type NoticeKind } from '../transport.js';

export interface ResumeDeps {
  readonly config: ConversationSettings;
  readonly store: TurnStore;
  /** The operators' view of the same store: which of the requester's requests wait for a verdict or for another process. */
  readonly operator: OperatorStore;
  readonly source: MessageSource;
  readonly catalog: () => ToolCatalog;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly engine: RunDeps;
  /** Where the resumed run is traced (DESIGN §10.3); nothing is when absent. */
  readonly tracer?: Tracer;
  /** The span of the message that asked for the resume, when one did: the resumed run's trace goes on under it. */
  readonly received?: TraceRef;
}

/**
 * Who asks for a resume: the requester (their `resume` tries now, as the breaker's probe), the
 * automatic waiter (it goes only when the breaker admits it), or the bot back from a restart
 * (`turn_state.continue_after_restart`: it tries now, for the requester, with the roles they hold now),
 * or the answers to every call that asked for approval (DESIGN §9.2: the same).
 */
export type ResumeAsker = 'requester' | 'automatic' | 'restart' | 'approval';

/** What a resume command came to. */
export type ResumeAttempt =
  | { readonly kind: 'not_a_resume' }
  /** The model's breaker would not let the turn try now (another probe is in flight): it stays saved as it was; `retryAtMs` is the breaker's next try (monotonic). */
  | { readonly kind: 'overloaded'; readonly turn: string; readonly retryAtMs: number | undefined }
  | { readonly kind: 'notice'; readonly turn: string | null; readonly notice: NoticeKind; readonly text: string }
  /** The resume ended the turn without running it (expired, or refused for good): the change is announced with the notice. */
  | { readonly kind: 'ended'; readonly turn: string; readonly status: TurnStatus; readonly notice: NoticeKind; readonly text: string }
  /** `resolved`: the operators' verdicts, when the requester had not been told of them yet (DESIGN §9.1); `trace`, the run's (DESIGN §10.3). */
  | { readonly kind: 'resumed'; readonly turn: TurnRecord; readonly continued: Promise<TurnEnding>; readonly resolved: string | undefined; readonly trace: TurnTrace };

/**
 * Explicit resume (DESIGN §9): `resume`, `continue` or `/resume [turn]` from a turn's requester in
 * its channel; the turn is named by its id or a unique start of it. Once the command matches preserved work it never falls through into a fresh turn:
 * every failure is a notice. Only the spoken word `continue` with nothing saved is `not_a_resume`: it
 * may just be conversation; a bare `resume` with nothing saved is told so, never sent to the model.
 */
export async function resumeCommand(origin: InboundMessage, wanted: string | undefined, spoken: boolean, signal: AbortSignal, deps: ResumeDeps): Promise<ResumeAttempt> {
  const { store } = deps;
  const channel = { source: origin.source, channelId: origin.channelId };
  const suspended = await store.listSuspended(channel);
  // `wanted` is the turn's id or its start, such as the short id /status shows.
  const matching = suspended.filter((candidate) => candidate.requesterId === origin.authorId && (wanted === undefined || candidate.turnId.startsWith(wanted)));
  if (wanted !== undefined && matching.length > 1) {
    return {
      kind: 'notice',
      turn: null,
      notice: 'rejected',
      text: ambiguousSavedText(
        wanted,
        matching.map((candidate) => candidate.turnId),
      ),
    };
  }
  const [turn] = matching;
  if (turn !== undefined) return resumeTurn(turn, origin, 'requester', signal, deps);
  const held = await heldElsewhere(origin, wanted, deps);
  if (held !== undefined) return held;
  const latest = wanted === undefined ? await store.latestTurnOf(channel, origin.authorId) : await store.getTurn(wanted);
  if (latest?.status === 'TERMINAL_EXPIRED' && latest.requesterId === origin.authorId) return expired(latest, deps.config);
  if (suspended.some((other) => other.requesterId !== origin.authorId)) {
    return { kind: 'notice', turn: null, notice: 'rejected', text: TEXTS.onlyRequesterResumes };
  }
  if (wanted !== undefined) return { kind: 'notice', turn: null, notice: 'rejected', text: noSuchSavedText(wanted) };
  return spoken ? { kind: 'not_a_resume' } : { kind: 'notice', turn: null, notice: 'status', text: TEXTS.nothingToResume };
}

/**
 * What a resume says of the requester's request in this channel (named by `wanted`, or their
 * newest) that is saved but cannot be resumed now: one parked for an operator's verdict (DESIGN
 * §9.1) waits for it, one parked for approval (§9.2) for the answers; one another process holds (its owner may have died, its lease not yet run
 * out) is tried again once the lease ends. `undefined` when there is none.
 */
async function heldElsewhere(origin: InboundMessage, wanted: string | undefined, deps: ResumeDeps): Promise<ResumeAttempt | undefined> {
  const open = await deps.operator.listTurns({ statuses: ['AWAITING_RESOLUTION', 'AWAITING_APPROVAL', 'ACTIVE'], source: origin.source, channelId: origin.channelId });
  const turn = open.map((overview) => overview.turn).find((candidate) => candidate.requesterId === origin.authorId && (wanted === undefined || candidate.turnId.startsWith(wanted)));
  if (turn === undefined) return undefined;
  if (turn.status === 'AWAITING_RESOLUTION') return { kind: 'notice', turn: turn.turnId, notice: 'manual_resolution', text: stillAwaitingNotice(turn, await deps.store.listOps(turn.turnId)) };
  if (turn.status === 'AWAITING_APPROVAL') return { kind: 'notice', turn: turn.turnId, notice: 'in_progress', text: awaitingApprovalAtAdmissionText(turn.turnId) };
  const seconds = Math.ceil(((turn.leaseExpiresAt ?? 0) - deps.clock.now()) / 1000);
  return { kind: 'notice', turn: turn.turnId, notice: 'in_progress', text: heldElsewhereText(turn.turnId, seconds) };
}

/**
 * Resumes one suspended turn for `requester` (DESIGN §9): the original message is re-checked,
 * the payload restored and validated and the tools re-derived (with the `overrides` entry in force
 * where the original was said) before the resume lease is taken;
 * one resumer wins. The turn's models are asked in order (DESIGN §5.4): the first whose breaker
 * admits a call goes, as its probe when the breaker is not closed; when none does, the
 * requester's resume claims every open breaker's probe slot even before its cooldown ends, so each
 * model is tried in order at once, while an automatic one waits; with every probe slot taken the
 * turn stays as it was (`overloaded`). Any failure is a notice; the turn stays saved unless it cannot be used.
 */
export async function resumeTurn(turn: TurnRecord, requester: InboundMessage, askedBy: ResumeAsker, signal: AbortSignal, deps: ResumeDeps): Promise<ResumeAttempt> {
  try {
    return await resume(turn, requester, askedBy, signal, deps);
  } catch (error) {
    deps.logger.error({ err: error, turn: turn.turnId }, 'resume failed');
    return { kind: 'notice', turn: turn.turnId, notice: 'failed', text: 'I could not resume that request because of an internal error. It is still saved; try `resume` again later.' };
  }
}

async function resume(turn: TurnRecord, requester: InboundMessage, askedBy: ResumeAsker, signal: AbortSignal, deps: ResumeDeps): Promise<ResumeAttempt> {
  const { store, config } = deps;
  if (deps.clock.now() - turn.lastProgressAt >= turnStoreTimings(config.turn_state).resumeTtlMs) {
    await store.sweepRetention();
    return { ...expired(turn, config), kind: 'ended', status: 'TERMINAL_EXPIRED' };
  }
  const original = await deps.source.fetchOriginal({ channelId: turn.identity.channelId, messageId: turn.identity.messageId, authorId: turn.requesterId, digest: turn.messageDigest });
  if (original === undefined || original.authorId !== turn.requesterId || original.digest !== turn.messageDigest) {
    return refuse(turn, 'the original message was edited or deleted', TEXTS.originalChanged, deps);
  }
  let resumable: ResumableTurn | undefined;
  try {
    resumable = await store.loadResumable(turn.turnId);
  } catch (error) {
    if (!isUndecodableTurnError(error)) throw error;
    return refuseDamaged(turn, [error.message], deps);
  }
  if (resumable === undefined || resumable.turn.status !== 'SUSPENDED') return alreadyContinued(turn);
  // Back from a restart, nobody typed anything: the requester's roles are those of the original's author now.
  const asker = { userId: requester.authorId, roleIds: askedBy === 'restart' || askedBy === 'approval' ? (original.authorRoleIds ?? []) : requester.authorRoleIds };
  // The entry in force where the original was said gives the tools as the configuration says now; the prompt and caps were fixed at admission.
  const here = overrideAt(config.overrides, turn.identity.channelId, original.place);
  const reconstructed = {
    turnId: turn.turnId,
    identity: turn.identity,
    requester: asker,
    tools: toolsOffered(deps.catalog().tools, config, asker, requester.channelId, here, await store.approvalRules({ source: turn.identity.source, channelId: turn.identity.channelId })),
    signal,
    logger: deps.logger.child({ turn: turn.turnId, channel: turn.identity.channelId }),
  };
  let restored;
  try {
    restored = restoreFromLog(resumable, reconstructed, turnDefaults(config, { now: deps.clock.now(), names: requester.names }, here));
  } catch (error) {
    if (!isInvalidCheckpointError(error)) throw error;
    return refuseDamaged(resumable.turn, error.problems, deps);
  }
  const claimed = claimOnRoute(routeOf(deps.engine.provider, deps.engine.fallbacks), deps.engine.recovery.breakers, askedBy !== 'automatic');
  if (claimed.kind === 'rejected') return { kind: 'overloaded', turn: turn.turnId, retryAtMs: claimed.retryAtMs };
  const { probes } = claimed;
  const giveBack = (): void => {
    for (const { breaker, token } of probes) breaker.abandonProbe(token);
  };
  // Each run is a trace of its own, linked to the turn's earlier ones, and kept with them by the claim.
  const trace = TurnTrace.start(deps.tracer ?? NO_TRACER, {
    identity: turn.identity,
    requesterId: turn.requesterId,
    startedBy: askedBy,
    turnId: turn.turnId,
    received: deps.received,
    earlier: resumable.turn.traces,
  });
  let claim;
  try {
    claim = await store.claimResume(turn.turnId, resumable.turn.generation, trace.traceparent);
  } catch (error) {
    giveBack();
    trace.threw(error);
    throw error;
  }
  if (!claim.won) {
    giveBack();
    trace.lostClaim();
    return { kind: 'notice', turn: turn.turnId, notice: 'in_progress', text: TEXTS.resumedElsewhere };
  }
  const resolved = claim.toldResolution && resumable.turn.suspensionReason !== APPROVALS_ANSWERED ? resolvedNotice(resumable.turn, resumable.ops, true) : undefined;
  // A run that never reached the model (its reply was already logged, it halted) gives the probe slots back.
  const engine = probes.length === 0 ? deps.engine : { ...deps.engine, probeTokens: probes.map((probe) => probe.token) };
  const traced = { ...restored.turn, logger: restored.turn.logger.child(trace.logFields), trace };
  const continued = runTurn(
    traced,
    { kind: 'resumed', log: restored.log },
    storeDurability(store, claim.lease, { replyJoins: channelKey(turn.identity), deadline: { clock: deps.clock, budgetMs: deps.engine.recovery.settings.deadlineMs } }),
    engine,
  ).finally(giveBack);
  return { kind: 'resumed', turn: claim.turn, continued, resolved, trace };
}

/** A saved turn whose stored state this code cannot use ends TERMINAL_REJECTED (DESIGN §7.5): a retry could never succeed. */
function refuseDamaged(turn: TurnRecord, problems: readonly string[], deps: ResumeDeps): Promise<ResumeAttempt> {
  deps.logger.warn({ turn: turn.turnId, channel: turn.identity.channelId, problems }, 'a saved turn is not usable');
  return refuse(turn, 'invalid saved state', TEXTS.savedStateUnusable, deps);
}

/** Ends a suspended turn for good before any lease is taken, or finds it already picked up by someone else. */
async function refuse(turn: TurnRecord, reason: string, text: string, deps: ResumeDeps): Promise<ResumeAttempt> {
  const ending = await rejectUnresumable(deps.store, turn, reason);
  if (ending.status === 'untouched') return alreadyContinued(turn);
  return { kind: 'ended', turn: turn.turnId, status: 'TERMINAL_REJECTED', notice: 'rejected', text };
}

function alreadyContinued(turn: TurnRecord): ResumeAttempt {
  return { kind: 'notice', turn: turn.turnId, notice: 'in_progress', text: TEXTS.alreadyContinued };
}

function expired(turn: TurnRecord, config: ConversationSettings): { readonly kind: 'notice'; readonly turn: string; readonly notice: NoticeKind; readonly text: string } {
  return { kind: 'notice', turn: turn.turnId, notice: 'expired', text: resumeExpiredText(config.turn_state.resume_ttl_hours) };
}
