/** Who said an entry: the people in the channel (`user`) or the bot (`assistant`). */
export type HistoryRole = 'user' | 'assistant';

/** How an entry is stored: a conversation entry, or the channel's one summary of what came before them. */
export type StoredHistoryRole = HistoryRole | 'summary';

/**
 * A file that came with a user's message, as history keeps it: an image (base64 bytes), a text
 * file, or one that was left out and why. The store keeps the bytes of images and text files in
 * its blob directory, once per content, and reads them back whole.
 */
export type HistoryAttachment =
  | { readonly kind: 'image'; readonly name: string; readonly mediaType: string; readonly data: string }
  | { readonly kind: 'text'; readonly name: string; readonly text: string }
  | { readonly kind: 'skipped'; readonly name: string; readonly reason: string; readonly limitBytes?: number };

/** One message of a channel's conversation: a user's message or the bot's final reply. */
export interface HistoryEntry {
  readonly role: HistoryRole;
  readonly text: string;
  /** Who wrote it (a Discord user id, or the console's user). */
  readonly authorId?: string;
  /** How the transport named its author when it was said (a member's display name): a later turn shows it with the message. */
  readonly authorName?: string;
  /** The transport's message id: an edit or a deletion of the message finds the entry by it. */
  readonly messageId?: string;
  /** The files that came with a user's message, in order; none when absent. */
  readonly attachments?: readonly HistoryAttachment[];
}

/** A stored entry as a history policy sees it; `id` grows with every entry appended. */
export interface StoredHistoryEntry {
  readonly id: number;
  readonly role: StoredHistoryRole;
  readonly text: string;
  /** Present when the transport named the author of a user's message. */
  readonly authorName?: string;
  /** Present when the entry has attachments. */
  readonly attachments?: readonly HistoryAttachment[];
}

/** A channel's stored entries — its summary first, if any, then the entries oldest first — and the revision they were read at. */
export interface ChannelHistory {
  readonly entries: readonly StoredHistoryEntry[];
  readonly revision: number;
}

/**
 * Removes the oldest entries of a channel, up to and including `throughId`, together with its
 * summary, and puts `summary` (if given) in their place — but only if the channel is as it was
 * read: `count` entries up to `throughId` are still there and its summary is still `summaryId`.
 */
export interface HistoryCompaction {
  readonly throughId: number;
  readonly count: number;
  /** The id of the summary the plan was made with; `undefined` when there was none. */
  readonly summaryId: number | undefined;
  /** The new summary of what is removed; absent to drop it without one. */
  readonly summary?: string;
  /** When given, the compaction applies only while the channel is still at this revision: nothing at all changed since the plan's read. */
  readonly revision?: number;
}

/**
 * The conversation of each channel across turns (DESIGN §2, §7.1). A channel is named by a key,
 * `${source}:${channelId}`. Every change is one transaction that also bumps the channel's revision
 * exactly once, so a reader that saw revision N knows the conversation is unchanged while the
 * revision is still N. A channel has at most one summary. What to keep is not the store's choice:
 * a history policy decides, through {@link HistoryStore.compact}.
 */
export interface HistoryStore {
  /** Adds an entry after the channel's newest; resolves to the channel's new revision. */
  append(channel: string, entry: HistoryEntry): Promise<number>;
  /** The channel's entries and the revision they were read at, in one read. */
  read(channel: string): Promise<ChannelHistory>;
  /** The channel's revision: 0 for a channel never written, bumped by every change. */
  revision(channel: string): Promise<number>;
  /**
   * Applies a compaction if the channel is still as the plan saw it (entries appended since are
   * newer and stay); resolves to `false`, changing nothing, otherwise. A change bumps the revision once.
   */
  compact(channel: string, compaction: HistoryCompaction): Promise<boolean>;
  /** Sets the text of the user's entry for message `messageId` (an edit on the transport), its author kept; resolves to whether an entry changed. */
  edit(channel: string, messageId: string, text: string): Promise<boolean>;
  /** Removes the users' entries for these messages (deleted on the transport); resolves to how many were removed. */
  remove(channel: string, messageIds: readonly string[]): Promise<number>;
}
