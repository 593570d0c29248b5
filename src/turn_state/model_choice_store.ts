/** The model an admin chose for a channel with `/model` (DESIGN §5.4). */
export interface ModelChoice {
  /** The model's name, as `llm.model` or a fallback's `model` gives it. */
  readonly model: string;
  /** Who chose it: `source:userId`. */
  readonly chosenBy: string;
  /** When, in epoch milliseconds, by the store's clock. */
  readonly chosenAt: number;
}

/**
 * The model each channel's turns try first, as its admins chose it (DESIGN §5.4). A channel is
 * named by its key, `${source}:${channelId}`, and has at most one choice; every process sharing
 * the store reads the same. Whether the name is one of the channel's models is not the store's
 * business: the conversation checks it when the choice is made and again when it is used.
 */
export interface ModelChoiceStore {
  /** The channel's choice; `undefined` when none was made or it was cleared. */
  chosen(channel: string): Promise<ModelChoice | undefined>;
  /** Makes `model` the channel's choice, in place of any earlier one; resolves to the choice as kept. */
  choose(channel: string, model: string, chosenBy: string): Promise<ModelChoice>;
  /** Forgets the channel's choice; resolves to whether there was one. */
  clear(channel: string): Promise<boolean>;
}
