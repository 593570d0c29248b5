import type { Clock } from '../../core/clock.js';
import { assertNever } from '../../core/assert_never.js';
import { shortTurnId } from '../../engine/call_label.js';
import type { TurnEnding } from '../../engine/terminal_writer.js';
import type { AwaitedCall, FailureReason } from '../../engine/turn_outcome.js';
import type { NoticeKind } from '../transport.js';
import type { ToolOutcome } from '../../tools/tool.js';

/**
 * Every sentence the bot says in a channel about requests and turns, in one file so that the
 * wording is reviewed in one place (its answers to commands are in command_texts.ts). The engine
 * and the store say why something happened (a reason, a status); the conversation picks the words here.
 *
 * @example
 * ```ts
 * const told = endingNotice({ status: 'SUSPENDED', suspendedFor: 'shutdown' });
 * // { notice: 'suspended', text: 'The bot is restarting. Your request … type `resume` to continue it.' }
 * ```
 */

// Time, as people read it.

/**
 * A span of time as people say it, rounded down to its largest unit: `37 s`, `5 min`, `23 h`,
 * `3 d`; under a second reads `0 s`.
 */
export function spanText(ms: number): string {
  const seconds = Math.floor(Math.max(0, ms) / 1000);
  if (seconds < 60) return `${seconds} s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  return hours < 48 ? `${hours} h` : `${Math.floor(hours / 24)} d`;
}

/** A wall-clock time of day in UTC, to the second: `14:05:30 UTC`. The bot does not know its readers' time zones. */
export function wallClockText(epochMs: number): string {
  return `${new Date(epochMs).toISOString().slice(11, 19)} UTC`;
}

/** A monotonic instant of `clock` (`undefined`: now) as the wall-clock time people read: `14:05 UTC`. */
export function clockTime(clock: Clock, monotonicMs: number | undefined): string {
  const wall = new Date(clock.now() + Math.max(0, (monotonicMs ?? clock.monotonicNow()) - clock.monotonicNow()));
  const two = (n: number): string => String(n).padStart(2, '0');
  return `${two(wall.getUTCHours())}:${two(wall.getUTCMinutes())} UTC`;
}

// Calls, as people name them.

/** A call as people are shown it: its tool and the label an operator gives a verdict by. */
export interface NamedCall {
  readonly toolName: string;
  readonly label: string;
}

/** `` `open_ticket` (call w1), `save_note` (call w2) ``; `fallback` when there are none. */
export function callsText(calls: readonly NamedCall[], fallback = 'its uncertain calls'): string {
  return calls.map((call) => `\`${call.toolName}\` (call ${call.label})`).join(', ') || fallback;
}

// How a turn ended.

const FAILURE_TEXTS: Readonly<Record<FailureReason | 'suspension_not_stored', string>> = {
  provider_auth: 'The model provider refused the bot’s credentials, so I cannot answer. An operator needs to check the API key.',
  provider_request: 'The model provider rejected the request, so I could not answer this one.',
  provider_quota: 'The model provider’s quota or spending limit is used up, so I cannot answer until an operator raises it.',
  provider_rate_limit: 'The model provider is rate-limiting the bot. Please try again in a little while.',
  empty_model_turn: 'The model gave an empty answer twice, so I stopped rather than send you nothing.',
  iteration_limit: 'This request needed more steps than one turn may take, so I stopped.',
  store_unavailable: 'I lost access to my storage in the middle of this request, so I stopped before doing anything unrecorded. Please try again later.',
  internal_error: 'Something went wrong inside the bot while answering. The operators can find the details in the log.',
  // The suspension could not be stored: a plain error, and no promise to resume.
  suspension_not_stored: 'The model provider is overloaded and I could not finish this request. Please try again later.',
};

const SUSPENSION_TEXTS: Readonly<Record<Extract<TurnEnding, { status: 'SUSPENDED' }>['suspendedFor'], string>> = {
  capacity: 'The model provider is overloaded right now. Your request and the work done so far are saved: I will continue by myself when the provider recovers, or type `resume` to try again now.',
  unreachable: 'The model provider cannot be reached right now. Your request and the work done so far are saved: type `resume` to try again once it is back.',
  shutdown: 'The bot is restarting. Your request and the work done so far are saved: type `resume` to continue it.',
};

/** A turn suspended by a shutdown, with `turn_state.continue_after_restart` on. */
const CONTINUES_AFTER_RESTART = 'The bot is restarting. Your request and the work done so far are saved: I will continue it once the bot is back.';

/** A turn's ending that is told as a notice alone: every ending but a reply, a request for approval, a fenced turn's, none, and a per-turn limit's (whose notice also joins the history). */
export type NoticedEnding = Exclude<TurnEnding, { readonly status: 'TERMINAL_COMPLETED' | 'AWAITING_APPROVAL' | 'untouched' } | { readonly reason: 'turn_limit' }>;

/**
 * What the requester is told of a turn that ended without a reply (DESIGN §8), and the notice it
 * is told as; `continuesAfterRestart` (`turn_state.continue_after_restart`) says whether a turn
 * suspended by a shutdown goes on by itself once the bot is back.
 */
export function endingNotice(ending: NoticedEnding, continuesAfterRestart = false): { readonly notice: NoticeKind; readonly text: string } {
  switch (ending.status) {
    case 'TERMINAL_FAILED':
      return { notice: 'failed', text: FAILURE_TEXTS[ending.reason] };
    case 'TERMINAL_CANCELLED':
      return { notice: 'cancelled', text: stoppedText([]) };
    case 'SUSPENDED':
      return { notice: 'suspended', text: ending.suspendedFor === 'shutdown' && continuesAfterRestart ? CONTINUES_AFTER_RESTART : SUSPENSION_TEXTS[ending.suspendedFor] };
    case 'AWAITING_RESOLUTION':
      return { notice: 'manual_resolution', text: awaitingVerdictText(ending.awaiting) };
    case 'TERMINAL_REJECTED':
      return {
        notice: 'manual_resolution',
        text: ending.reason.kind === 'uncertain' ? uncheckableText(ending.reason.calls) : 'I could not pick this request up again: its saved state is not usable. Please ask again.',
      };
    case 'unrecorded':
      return {
        notice: 'failed',
        text: 'I lost access to my storage, so I could not record how this request ended, and I stopped working on it. Once the bot can reach its storage again it will tell you what became of it.',
      };
    default:
      return assertNever(ending);
  }
}

/** The parked turn's notice (DESIGN §9.1): which calls, the turn's short id, and what an operator has to check. */
function awaitingVerdictText(calls: readonly AwaitedCall[]): string {
  const turn = shortTurnId(calls[0]?.op.turnId ?? '');
  return (
    `I stopped before doing anything twice: I cannot tell whether ${callsText(namedCalls(calls))} ` +
    `took effect, and running it again could do it twice. ` +
    `Your request is saved as turn ${turn}. An operator has to check at the tool's target whether ${calls.length === 1 ? 'that call' : 'each call'} happened ` +
    `and record it with \`holdfast turns resolve ${turn} <call> --applied\` or \`--not-applied\`; I will tell you here once that is done, and \`resume\` then continues.`
  );
}

function namedCalls(calls: readonly AwaitedCall[]): NamedCall[] {
  return calls.map(({ op, label }) => ({ toolName: op.toolName, label }));
}

/** Without a store no verdict can be kept: the turn ends, and the user is told what to check. */
function uncheckableText(calls: readonly AwaitedCall[]): string {
  const named = callsText(namedCalls(calls));
  return `I stopped: I cannot tell whether ${named} took effect, and running it again could do it twice. Please check it yourself before asking again.`;
}

/**
 * How a turn came to be interrupted: the bot restarted while it ran, or the process that ran it
 * stopped answering and this one reclaimed it once its lease expired (DESIGN §7.7).
 */
export type Interruption = 'restart' | 'reclaimed';

/** What the channel of an interrupted turn is told, once: its work is saved, and `resume` continues it. */
export function interruptedText(interruption: Interruption): string {
  switch (interruption) {
    case 'restart':
      return 'The bot restarted while working on a request; its work is saved. Type `resume` to continue it.';
    case 'reclaimed':
      return 'The bot process working on this request stopped answering; its work is saved. Type `resume` to continue it.';
    default:
      return assertNever(interruption);
  }
}

// A message as it arrives.

export const TEXTS = {
  // A slash command from someone the access rules do not let use the bot there.
  accessRefused: 'You are not allowed to use this bot here.',
  alreadyAnswered: 'I have already answered this message.',
  alreadyWorking: 'I am already working on this message.',
  interrupted: 'This request was interrupted and its work is saved; type `resume` to continue it.',
  storeUnavailable: 'My storage is unavailable, so I will not start work I could not keep track of. Please try again later.',
  busy: 'I am still working on earlier messages in this channel; please send this again in a moment.',
  handlingFailed: 'Something went wrong inside the bot while handling this message. The operators can find the details in the log.',
  noModel: 'No model is configured yet: set `llm.model` (and `llm.api_key` or `llm.base_url`) in the configuration, then restart the bot.',
  continuing: 'Continuing your saved request.',
  continuingAfterRestart: 'Continuing your request after a restart.',
  // Resume.
  onlyRequesterResumes: 'Only the person who asked can resume their saved request.',
  nothingToResume: 'You have no saved request in this channel to resume.',
  originalChanged: 'Your original message was edited or deleted since, so I will not continue the old request. Please ask again.',
  savedStateUnusable: 'The saved state of that request is not usable, so I will not continue it. Please ask again.',
  resumedElsewhere: 'Another resume already picked that request up.',
  alreadyContinued: 'That request is already being continued.',
  // /stop and /status.
  nothingRunning: 'Nothing is running in this channel.',
  onlyRequesterStops: 'Only the person who asked, or an admin, can stop this.',
  noSavedRequests: 'No saved requests are waiting.',
  defaultSettings: 'Settings here: the defaults (no entry of `overrides` matches this channel).',
  modelsInOrder: 'Models here, in the order they are tried:',
  // The admins' commands.
  storeOff: 'The bot keeps no turns right now (its store is off), so there is nothing to look at or resolve.',
  nothingNeedsAttention: 'Nothing needs attention.',
  commandFailed: 'Something went wrong inside the bot while answering this. The operators can find the details in the log.',
  // The bot's status beside its name while every model of the default route is refused by its breaker.
  modelOverloaded: 'model overloaded — requests are saved',
} as const;

/** A message of the requester's that is waiting for an operator's verdict, found again at admission. */
export function awaitingAtAdmissionText(turnId: string): string {
  return `This request (turn ${shortTurnId(turnId)}) is waiting for an operator to check a call whose outcome is unknown; I will tell you here once that is done.`;
}

/** A message longer than `chat.max_message_chars`. */
export function tooLongText(limit: number): string {
  return `Your message is longer than ${limit} characters, the most I take, so I did not read or keep it. Please send it shorter.`;
}

/** A message kept in the inbox past the resume window while the bot was stopped. */
export function waitedTooLongText(windowHours: number): string {
  return `This message waited longer than ${windowHours} hours while the bot was stopped, so it was not answered. Please send it again.`;
}

/** A saved request past its resume window. */
export function resumeExpiredText(windowHours: number): string {
  return `That request waited longer than ${windowHours} hours and can no longer be resumed.`;
}

/** A `resume <id>` whose id names none of the requester's saved requests here. */
export function noSuchSavedText(wanted: string): string {
  return `There is no saved request ${wanted} of yours in this channel.`;
}

/** A `resume <id>` whose id is the start of several of the requester's saved requests. */
export function ambiguousSavedText(wanted: string, turnIds: readonly string[]): string {
  return `${wanted} names several of your saved requests (${turnIds.join(', ')}); give more of the id.`;
}

/** A request another process held when its `resume` came: it can be tried again once that lease ends (`inSeconds`; nothing left: soon). */
export function heldElsewhereText(turnId: string, inSeconds: number): string {
  return `Another process was working on your request (turn ${shortTurnId(turnId)}); try \`resume\` again ${inSeconds > 0 ? `in ${inSeconds} s` : 'in a moment'}.`;
}

/** A request waiting for an operator's verdict on `waiting`, as `/status` and a premature `resume` tell it. */
export function waitingForVerdictText(turnId: string, waiting: readonly NamedCall[]): string {
  return (
    `Your request (turn ${shortTurnId(turnId)}) is waiting for an operator to check whether ${callsText(waiting)} ` +
    `took effect. I will tell you here once that is done; then \`resume\` continues it.`
  );
}

/**
 * The `resolved` notice (DESIGN §9.1): what the operators found about the turn's uncertain calls
 * (`found`, one phrase per call with a verdict), and how it goes on — by itself, or on `resume`.
 */
export function resolvedText(turnId: string, found: readonly string[], continuing: boolean): string {
  const next = continuing ? 'I am continuing your request now.' : 'Type `resume` to continue your request.';
  return `An operator checked your saved request (turn ${shortTurnId(turnId)}): ${found.length === 0 ? 'every uncertain call has a verdict' : found.join('; ')}. ${next}`;
}

/** What an operator found about one call: `took effect: …` or `did not take effect (…)`. */
export function verdictText(applied: boolean, text: string | null): string {
  if (applied) return `took effect${text === null ? '' : `: ${text}`}`;
  return `did not take effect${text === null ? '' : ` (${text})`}`;
}

// Overloads.

/**
 * What a requester's `resume` is told while another request is trying the overloaded model
 * (DESIGN §9): when the next try is, by the bot itself when `automatic`, else by them.
 */
export function probeInFlightText(clock: Clock, retryAtMs: number | undefined, automatic: boolean): string {
  const at = clockTime(clock, retryAtMs);
  const what = 'The model provider is still overloaded, and another request is trying it right now.';
  return automatic
    ? `${what} Your request is saved: I will try again at ${at} (sooner if the provider recovers), or type \`resume\` after that.`
    : `${what} Your request is saved: type \`resume\` again after ${at}.`;
}

/** The new text of a turn's suspended notice once an automatic try found the model still overloaded: when it tried, and when it tries next. */
export function stillOverloadedText(clock: Clock, retryAtMs: number | undefined): string {
  return (
    `The model provider was still overloaded at ${clockTime(clock, undefined)}. Your request and the work done so far are saved: ` +
    `I will try again by myself at ${clockTime(clock, retryAtMs)}, or type \`resume\` to try now.`
  );
}

// /stop and /status.

/** A call with an effect that ran on when /stop came, and what it came to once it settled (nothing known when it threw). */
export interface FinishedOnStop {
  readonly toolName: string;
  readonly outcome: ToolOutcome | undefined;
}

/** The most characters of a call's result or error that a notice quotes. */
const QUOTED_OUTCOME_CHARS = 300;

/**
 * A stopped turn's notice: `Stopped.`, then what each call that ran on after /stop came to
 * ("`open_ticket` finished before stopping: Ticket T-1 was created"). The channel's history keeps
 * the same words, so that the model knows next time what was done.
 */
export function stoppedText(finished: readonly FinishedOnStop[]): string {
  return ['Stopped.', ...finished.map(({ toolName, outcome }) => `\`${toolName}\` ${finishedOutcomeText(outcome)}`)].join('\n');
}

function finishedOutcomeText(outcome: ToolOutcome | undefined): string {
  if (outcome === undefined) return 'ended before stopping, and whether it took effect is not known.';
  switch (outcome.kind) {
    case 'result':
      return `finished before stopping: ${quotedOutcome(outcome.text)}`;
    case 'failed':
      return `failed before stopping: ${quotedOutcome(outcome.error)}`;
    case 'uncertain':
      return 'ended before stopping, and whether it took effect is not known.';
    default:
      return assertNever(outcome);
  }
}

/** A result or error on one line, cut at {@link QUOTED_OUTCOME_CHARS} characters. */
export function quotedOutcome(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length <= QUOTED_OUTCOME_CHARS ? line : `${line.slice(0, QUOTED_OUTCOME_CHARS).trimEnd()}…`;
}

/** `/stop`'s acknowledgement, naming each running tool with an effect: it finishes first. */
export function stoppingText(finishing: readonly string[]): string {
  const named = finishing.map((name) => `\`${name}\``);
  return `Stopping…${named.length === 0 ? '' : ` ${named.join(' and ')} ${named.length === 1 ? 'is' : 'are'} already running and will finish first.`}`;
}

/** What a turn's draft shows while its tools run: `running open_ticket…`, each tool named once, with how many of its calls run when more than one (`lookup (×2), weather`). */
export function runningToolsText(toolNames: readonly string[]): string {
  const counts = new Map<string, number>();
  for (const name of toolNames) counts.set(name, (counts.get(name) ?? 0) + 1);
  return `running ${[...counts].map(([name, count]) => (count === 1 ? name : `${name} (×${count})`)).join(', ')}…`;
}

/** `/status`'s first line while a turn runs: its short id, for how long, and its phase. */
export function workingText(turnId: string, forMs: number, phase: string): string {
  return `Working on a request (turn ${shortTurnId(turnId)}) for ${spanText(forMs)}: ${phase}.`;
}

/** How many messages wait in the channel behind the running one, as `/status` heads their list. */
export function queuedText(count: number): string {
  return `${count} message${count === 1 ? '' : 's'} ${count === 1 ? 'waits' : 'wait'} behind it:`;
}

/** The most words, and characters, of a waiting message `/status` shows. */
const QUEUED_WORDS = 8;
const QUEUED_CHARS = 60;

/** One waiting message in `/status`: its first words, quoted, `…` where it goes on. */
export function queuedLineText(text: string): string {
  const words = text.trim().split(/\s+/);
  let shown = words.slice(0, QUEUED_WORDS).join(' ');
  if (shown.length > QUEUED_CHARS) shown = shown.slice(0, QUEUED_CHARS).trimEnd();
  return `• “${shown}${shown.length < words.join(' ').length ? '…' : ''}”`;
}

/** The header of the requester's saved requests in `/status`. */
export function yourSavedText(count: number): string {
  return `Your saved request${count === 1 ? '' : 's'} (\`resume <id>\` continues one):`;
}

/** One saved request of the requester's in `/status`. */
export function savedLineText(turnId: string, stoppedAgoMs: number, reason: string, expiresInMs: number): string {
  return `• \`${shortTurnId(turnId)}\` stopped ${spanText(stoppedAgoMs)} ago (${reason}); expires in ${spanText(expiresInMs)}`;
}

/** How many saved requests of other people wait in the channel. */
export function othersSavedText(count: number): string {
  return `${count} saved request${count === 1 ? '' : 's'} of other people ${count === 1 ? 'waits' : 'wait'} here.`;
}

/** One of the requester's requests that waits for a verdict, as `/status` lists it. */
export function parkedLineText(turnId: string, waiting: readonly NamedCall[]): string {
  return `Your request \`${shortTurnId(turnId)}\` waits for an operator to check whether ${callsText(waiting)} took effect.`;
}

/** Which `overrides` entry applies where `/status` was asked. */
export function settingsHereText(label: string): string {
  return `Settings here: ${label}.`;
}

// Below a reply.

/** The line below a reply whose model reasoned first (`chat.show_reasoning: summary`): `-# thought for 12 s`, a second at least. */
export function thoughtText(thoughtMs: number): string {
  return `-# thought for ${spanText(Math.max(1000, thoughtMs))}`;
}
