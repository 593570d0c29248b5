import { assertNever } from '../core/assert_never.js';
import type { ChatSettings } from './chat_settings.js';
import type { Message } from '../llm/protocol.js';
import type { HistoryStore, StoredHistoryEntry } from '../turn_state/history_store.js';

/** What the summary entry's text starts with when it is loaded as a message. */
export const SUMMARY_PREFIX = 'Summary of the earlier conversation: ';

/** A channel's conversation as it goes with a request, and the revision it was read at. */
export interface HistoryView {
  /** Text messages, oldest first; a summary of the earlier conversation, if any, comes first as a `user` message. */
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

function toMessage(entry: StoredHistoryEntry): Message {
  switch (entry.role) {
    case 'user':
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
  let total = conversation.reduce((sum, entry) => sum + characterCount(entry.text), 0);
  let cut = 0;
  for (const entry of conversation.slice(0, -1)) {
    if (total <= maxChars) break;
    total -= characterCount(entry.text);
    cut += 1;
  }
  if (cut === 0) return undefined;
  return { summary: entries.find((entry) => entry.role === 'summary'), removed: conversation.slice(0, cut) };
}

/** The messages a summarizer folds: the earlier summary first, then the removed entries in order. */
function planMessages(plan: CompactionPlan): Message[] {
  return [...(plan.summary === undefined ? [] : [plan.summary]), ...plan.removed].map(toMessage);
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

/** Applies a plan; `false` when the channel changed since it was made. */
function apply(store: HistoryStore, channel: string, plan: CompactionPlan, summary?: string): Promise<boolean> {
  const last = plan.removed.at(-1);
  if (last === undefined) return Promise.resolve(false);
  const compaction = { throughId: last.id, count: plan.removed.length, summaryId: plan.summary?.id };
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

/** The channel's conversation as text messages, oldest first, and the revision it was read at. */
export async function loadHistory(store: HistoryStore, channel: string): Promise<HistoryView> {
  const { entries, revision } = await store.read(channel);
  return { messages: entries.map(toMessage), revision };
}

/**
 * Brings the channel's entries within `maxChars` characters by removing the oldest (never the
 * newest, even when it alone is over); the summary is not counted, so a second call right after
 * changes nothing. With `summarize` compaction and a summarizer, the removed entries — the earlier
 * summary first — are replaced by one new summary; when the summarizer throws or answers nothing,
 * or an entry it was given was removed meanwhile, the entries are dropped instead. Changes nothing
 * when the entries fit; otherwise bumps the revision once. A deleted message that had already been
 * summarised lives on only in that summary's words.
 * @throws RangeError when `maxChars` is not a positive integer.
 */
export async function fitHistoryToBudget(store: HistoryStore, channel: string, maxChars: number, compaction: Compaction, summarize?: Summarizer): Promise<FitResult> {
  if (!Number.isInteger(maxChars) || maxChars < 1) throw new RangeError(`history budget must be a positive integer, got ${maxChars}`);
  switch (compaction) {
    case 'drop':
      return drop(store, channel, maxChars);
    case 'summarize': {
      if (summarize === undefined) return drop(store, channel, maxChars);
      const plan = planCompaction((await store.read(channel)).entries, maxChars);
      if (plan === undefined) return NOTHING_CHANGED;
      const summary = await trySummarize(summarize, planMessages(plan));
      if (summary !== undefined && (await apply(store, channel, plan, summary))) return { dropped: plan.removed.length, summarised: true };
      return drop(store, channel, maxChars);
    }
    default:
      return assertNever(compaction);
  }
}
