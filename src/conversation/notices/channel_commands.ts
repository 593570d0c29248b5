import { isAdmin } from '../../tools/permissions.js';
import { modelsAt, overrideAt, overrideLabel } from '../channel_overrides.js';
import type { ConversationDeps } from '../conversation_deps.js';
import { chosenModelIn } from '../model_choice.js';
import { waitingIn } from '../operators/approvals.js';
import { approvalStatusLines } from './approval_texts.js';
import { modelHealthLines } from './model_health.js';
import { channelKey, type Inbound, type InboundMessage, postNotice, type UsageSubject } from '../transport.js';
import { parkedCallLines, savedRequestLines } from './saved_requests.js';
import { queuedLineText, queuedText, settingsHereText, stoppingText, TEXTS, workingText } from './texts.js';
import { chosenModelText, helpText, unknownCommandText } from './command_texts.js';
import type { RunningTurn } from '../turns/turn_runner.js';

/**
 * `/stop`: the channel's running turn is cancelled, when its requester or an admin asks. It is
 * acknowledged at once, naming each running tool with an effect: /stop lets it finish.
 */
export function stopCommand(origin: InboundMessage, running: ReadonlyMap<string, RunningTurn>, deps: Pick<ConversationDeps, 'config' | 'sink'>): void {
  const turn = running.get(channelKey(origin));
  if (turn === undefined) return postNotice(deps.sink, origin, null, 'status', TEXTS.nothingRunning);
  if (turn.requesterId !== origin.authorId && !isAdmin(deps.config.permissions, origin.authorId)) {
    return postNotice(deps.sink, origin, null, 'status', TEXTS.onlyRequesterStops);
  }
  postNotice(deps.sink, origin, null, 'status', stoppingText(turn.phase.stopRequested()));
  turn.controller.abort();
}

/** `/help`: the commands of the transport the asker uses, the admins' ones too for an admin. */
export function helpCommand(origin: InboundMessage, deps: Pick<ConversationDeps, 'config' | 'sink'>): void {
  postNotice(deps.sink, origin, null, 'status', helpText(origin.source, isAdmin(deps.config.permissions, origin.authorId)));
}

/** A `/word` that is no command: answered, never sent to the model. */
export function unknownCommand(origin: InboundMessage, command: string, deps: Pick<ConversationDeps, 'sink'>): void {
  postNotice(deps.sink, origin, null, 'rejected', unknownCommandText(command));
}

/**
 * `/status`: what runs in the channel (its phase and for how long) and the messages `waiting`
 * behind it (how many, and the first words of each); the asker's saved requests
 * there, each with its short id for `/resume`, why it stopped, how long ago and when it expires;
 * their calls awaiting an operator's verdict; the calls in the channel that wait for a person's
 * approval and the tools always allowed there; the model an admin chose for the channel, if one
 * is in use; any model that is overloaded or failing (with fallbacks: every model of the channel,
 * in the order they are tried, and its breaker's state); and, when `overrides` are configured,
 * which entry applies here.
 */
export async function statusCommand(
  origin: InboundMessage,
  running: ReadonlyMap<string, RunningTurn>,
  waiting: readonly InboundMessage[],
  deps: Pick<ConversationDeps, 'config' | 'store' | 'operator' | 'models' | 'sink' | 'recovery' | 'clock' | 'logger' | 'provider' | 'fallbacks'>,
): Promise<void> {
  const turn = running.get(channelKey(origin));
  const now = deps.clock.monotonicNow();
  const chosen = await chosenModelIn(origin, deps);
  const route = modelsAt(deps, overrideAt(deps.config.overrides, origin.channelId, origin.place), chosen);
  // A choice the configuration no longer offers here is not in use.
  const inUse = route?.find((model) => model.model === chosen)?.model;
  const lines = [
    turn === undefined ? TEXTS.nothingRunning : workingText(turn.turnId, now - turn.startedAt, turn.phase.describe()),
    ...(waiting.length === 0 ? [] : [queuedText(waiting.length), ...waiting.map((message) => queuedLineText(message.text))]),
    ...(await savedRequestLines(origin, deps)),
    ...(await parkedCallLines(origin, deps)),
    ...approvalStatusLines(
      await waitingIn(origin, deps),
      (await deps.store.approvalRules({ source: origin.source, channelId: origin.channelId })).map((rule) => rule.toolName),
    ),
    ...(inUse === undefined ? [] : [chosenModelText(inUse)]),
    ...modelHealthLines(deps.recovery, route),
    ...settingsLines(origin, deps),
  ];
  postNotice(deps.sink, origin, null, 'status', lines.join('\n'));
}

/** Which `overrides` entry shapes the turns where `origin` was said; nothing when none are configured. */
function settingsLines(origin: InboundMessage, deps: Pick<ConversationDeps, 'config'>): string[] {
  const { overrides } = deps.config;
  if (overrides.length === 0) return [];
  const here = overrideAt(overrides, origin.channelId, origin.place);
  return [here === undefined ? TEXTS.defaultSettings : settingsHereText(overrideLabel(here))];
}

const RESUME = /^(?:resume|continue|\/resume)(?:\s+(\S+))?$/i;
const MODEL = /^\/model(?:\s+(.+))?$/is;
const USAGE = /^\/usage(?:\s+(.*))?$/is;
const APPROVE = /^\/approve(?:\s+(\S+))?$/i;
const DENY = /^\/deny(?:\s+(\S+)(?:\s+(.+))?)?$/is;

/** A line shaped as a command: a slash and a word, alone or before a space (`/etc/passwd` is a path, not a command). */
const COMMAND_SHAPED = /^\/([A-Za-z][\w-]*)(?:\s|$)/;

/**
 * The commands people type as text, for the transports that take text (the console, Discord
 * messages): `/help`, `/stop`, `/status`, `/usage`, `/resume [turn]`, `/approve [call]` and `/deny [call] [note]`, the admins' `/model [name]`
 * and `/usage user ID`, `/usage channel [ID]` (the channel it is typed in by default) and `/usage server`, and the
 * words `resume` and `continue`; any other `/word` is an unknown command. The conversation itself only ever sees
 * the typed result.
 */
export function inboundFromText(message: InboundMessage): Inbound {
  const text = message.text.trim();
  const lowered = text.toLowerCase();
  if (lowered === '/help') return { kind: 'help', origin: message };
  if (lowered === '/stop') return { kind: 'stop', origin: message };
  if (lowered === '/status') return { kind: 'status', origin: message };
  const model = MODEL.exec(text);
  if (model !== null) return { kind: 'model', origin: message, model: model[1] };
  const usage = USAGE.exec(text);
  if (usage !== null) return { kind: 'usage', origin: message, subject: usageSubject(usage[1], message) };
  const approve = APPROVE.exec(text);
  if (approve !== null) return { kind: 'approval', origin: message, target: { call: approve[1] }, verdict: 'approved', note: null, allowHere: false };
  const deny = DENY.exec(text);
  if (deny !== null) return { kind: 'approval', origin: message, target: { call: deny[1] }, verdict: 'denied', note: deny[2]?.trim() ?? null, allowHere: false };
  const resume = RESUME.exec(text);
  if (resume !== null) return { kind: 'resume', origin: message, turnId: resume[1], spoken: lowered.startsWith('continue') };
  const command = COMMAND_SHAPED.exec(text);
  if (command !== null) return { kind: 'unknown', origin: message, command: `/${command[1] ?? ''}` };
  return { kind: 'message', origin: message };
}

/** What the words after `/usage` ask for: nothing, `user ID`, `channel [ID]` or `server`; anything else is unclear. */
function usageSubject(words: string | undefined, message: InboundMessage): UsageSubject {
  const [what = '', id, ...rest] = (words ?? '').trim().split(/\s+/);
  if (rest.length > 0) return { kind: 'unclear' };
  switch (what.toLowerCase()) {
    case '':
      return { kind: 'own' };
    case 'user':
      return id === undefined ? { kind: 'unclear' } : { kind: 'user', userId: id };
    case 'channel':
      return { kind: 'channel', channelId: id ?? message.channelId };
    case 'server':
      return id === undefined ? { kind: 'server' } : { kind: 'unclear' };
    default:
      return { kind: 'unclear' };
  }
}
