import { assertNever } from '../../core/assert_never.js';
import type { ChatSettings } from '../chat_settings.js';
import type { Message } from '../../llm/protocol.js';
import type { HistoryStore, StoredHistoryEntry } from '../../turn_state/history_store.js';
import { attachmentChars, fromHistory } from './history_attachments.js';
import { userContent } from './user_content.js';
import { generateOnRoute, type RecoveryRuntime } from '../../recovery/generate_with_recovery.js';
import type { ModelRoute } from '../../recovery/model_route.js';

/** What the summary entry's text starts with when it is loaded as a message. */
export const SUMMARY_PREFIX = 'Summary of the earlier conversation: ';

/** A channel's conversation as it goes with a request, and the revision it was read at. */
export interface HistoryView {
  /** The messages, oldest first, users' with their authors' names and their attachments; a summary of the earlier conversation, if any, comes first as a `user` message. */
  readonly messages: Message[];
  readonly revision: number;
}

/** What to do with history beyond the budget: drop it, or fold it into a summary (`chat.compaction`). */
export type Compaction = ChatSettings['compaction'];

/** Summarises messages into one text; the first message may itself be the earlier summary. */
export type Summarizer = (messages: Message[]) => Promise<string>;

/** What a {@link fitHistoryToBudget} did: how many entries it removed, and whether a summary replaced them. */
export interface FitResult {
  readonly dropped: number;
  readonly summarised: boolean;
}

/** The entries a compaction removes: the oldest ones (a contiguous prefix) and the summary before them. */
interface CompactionPlan {
  readonly summary: StoredHistoryEntry | undefined;
  readonly removed: readonly StoredHistoryEntry[];
}

const NOTHING_CHANGED: FitResult = { dropped: 0, summarised: false };

/** Characters as a person counts them: code points, not UTF-16 units. */
function characterCount(text: string): number {
  return [...text].length;
}

/** What an entry counts against the budget: its text and its attachments (see {@link attachmentChars}). */
function entryChars(entry: StoredHistoryEntry): number {
  return characterCount(entry.text) + (entry.attachments ?? []).reduce((sum, attachment) => sum + attachmentChars(attachment), 0);
}

/** An entry as a message: a user's named by its author (DESIGN §4.2), with its attachments as `vision` lets the model see them; the bot's own replies as they were. */
function toMessage(entry: StoredHistoryEntry, vision: boolean): Message {
  switch (entry.role) {
    case 'user':
      return { role: 'user', content: userContent(entry.text, (entry.attachments ?? []).map(fromHistory), vision, entry.authorName) };
    case 'assistant':
      return { role: entry.role, content: [{ type: 'text', text: entry.text }] };
    case 'summary':
      return { role: 'user', content: [{ type: 'text', text: `${SUMMARY_PREFIX}${entry.text}` }] };
    default:
      return assertNever(entry.role);
  }
}

/**
 * Which entries to remove so that the conversation entries fit `maxChars`: the oldest first,
 * never the newest; the summary goes with them, since it summarises what came before them.
 * `undefined` when the entries already fit (or only the newest is left).
 */
function planCompaction(entries: readonly StoredHistoryEntry[], maxChars: number): CompactionPlan | undefined {
  const conversation = entries.filter((entry) => entry.role !== 'summary');
  let total = conversation.reduce((sum, entry) => sum + entryChars(entry), 0);
  let cut = 0;
  for (const entry of conversation.slice(0, -1)) {
    if (total <= maxChars) break;
    total -= entryChars(entry);
    cut += 1;
  }
  if (cut === 0) return undefined;
  return { summary: entries.find((entry) => entry.role === 'summary'), removed: conversation.slice(0, cut) };
}

/** The messages a summarizer folds: the earlier summary first, then the removed entries in order (images named, not shown). */
function planMessages(plan: CompactionPlan): Message[] {
  return [...(plan.summary === undefined ? [] : [plan.summary]), ...plan.removed].map((entry) => toMessage(entry, false));
}

/** The summarizer's text, or `undefined` when it threw or said nothing: the caller then drops instead. */
async function trySummarize(summarize: Summarizer, messages: Message[]): Promise<string | undefined> {
  try {
    const text = (await summarize(messages)).trim();
    return text === '' ? undefined : text;
  } catch {
    return undefined;
  }
}

/** Applies a plan; `false` when the channel changed since it was made (with `revision`: when anything changed since that revision). */
function apply(store: HistoryStore, channel: string, plan: CompactionPlan, summary?: string, revision?: number): Promise<boolean> {
  const last = plan.removed.at(-1);
  if (last === undefined) return Promise.resolve(false);
  const compaction = { throughId: last.id, count: plan.removed.length, summaryId: plan.summary?.id, ...(revision === undefined ? {} : { revision }) };
  return store.compact(channel, summary === undefined ? compaction : { ...compaction, summary });
}

/** How often a drop plans again when the channel changed between its read and its write. */
const DROP_ATTEMPTS = 5;

/** Removes what a plan made now says, without a summary; plans again when the channel changed meanwhile. */
async function drop(store: HistoryStore, channel: string, maxChars: number): Promise<FitResult> {
  for (let attempt = 0; attempt < DROP_ATTEMPTS; attempt += 1) {
    const plan = planCompaction((await store.read(channel)).entries, maxChars);
    if (plan === undefined) return NOTHING_CHANGED;
    if (await apply(store, channel, plan)) return { dropped: plan.removed.length, summarised: false };
  }
  return NOTHING_CHANGED;
}

/** The channel's conversation as messages, oldest first, and the revision it was read at; images are shown when `vision` (`llm.vision`). */
export async function loadHistory(store: HistoryStore, channel: string, vision = false): Promise<HistoryView> {
  const { entries, revision } = await store.read(channel);
  return { messages: entries.map((entry) => toMessage(entry, vision)), revision };
}

/**
 * Brings the channel's entries within `maxChars` characters (attachments counted as
 * {@link attachmentChars} says) by removing the oldest (never the newest, even when it alone is
 * over); the summary is not counted, so a second call right after changes nothing. With
 * `summarize` compaction and a summarizer, the removed entries — the earlier summary first — are
 * replaced by one new summary; when the summarizer throws or answers nothing they are dropped
 * instead. A summary is slow, so it is kept only if nothing at all changed in the channel while it
 * was written: when the conversation moved on meanwhile (a new message, an edit, a deletion)
 * nothing changes, and the fitting after the next reply tries again. Nothing changes either once
 * `signal` aborted (shutdown). Changes nothing when the entries fit; otherwise bumps the revision
 * once. A deleted message that had already been summarised lives on only in that summary's words.
 * @throws RangeError when `maxChars` is not a positive integer.
 */
export async function fitHistoryToBudget(store: HistoryStore, channel: string, maxChars: number, compaction: Compaction, summarize?: Summarizer, signal?: AbortSignal): Promise<FitResult> {
  if (!Number.isInteger(maxChars) || maxChars < 1) throw new RangeError(`history budget must be a positive integer, got ${maxChars}`);
  switch (compaction) {
    case 'drop':
      return drop(store, channel, maxChars);
    case 'summarize': {
      if (summarize === undefined) return drop(store, channel, maxChars);
      const { entries, revision } = await store.read(channel);
      const plan = planCompaction(entries, maxChars);
      if (plan === undefined) return NOTHING_CHANGED;
      const summary = await trySummarize(summarize, planMessages(plan));
      if (signal?.aborted === true) return NOTHING_CHANGED;
      if (!(await apply(store, channel, plan, summary, revision))) return NOTHING_CHANGED;
      return { dropped: plan.removed.length, summarised: summary !== undefined };
    }
    default:
      return assertNever(compaction);
  }
}

const INSTRUCTION = 'Summarise the conversation below in a few sentences, keeping names, facts, decisions and open questions. Write only the summary.';

/** Summarises history beyond its budget on the configured models through the same recovery policy as every model call; `signal` ends its waits at shutdown. */
export function summarizeThrough(route: ModelRoute | undefined, recovery: RecoveryRuntime, signal: AbortSignal): Summarizer {
  return async (messages: Message[]) => {
    if (route === undefined) throw new Error('no model is configured');
    const text = messages.map((m) => `${m.role}: ${m.content.flatMap((b) => (b.type === 'text' ? [b.text] : [])).join('')}`).join('\n');
    const { response } = await generateOnRoute(route, { system: INSTRUCTION, messages: [{ role: 'user', content: [{ type: 'text', text }] }] }, { runtime: recovery, signal });
    return response.content.flatMap((block) => (block.type === 'text' ? [block.text] : [])).join('');
  };
}
