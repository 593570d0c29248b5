import type { AttachmentFile } from './attachments.js';
import type { CommandOptionJson, InteractionIds } from './interactions.js';

/** A user message to dispatch as MESSAGE_CREATE: in one of the guilds' channels or the thread, or a DM in the world's DM channel. */
export interface UserMessage {
  readonly channelId: string;
  readonly authorId: string;
  readonly content: string;
  /** Lists the bot in `mentions` (the content is left as given). */
  readonly mentionsBot?: boolean;
  readonly messageId?: string;
  /** The author is a bot account (another bot than the one under test). */
  readonly authorIsBot?: boolean;
  /** The author's nickname in the server, which is their display name there; none when absent (and in a DM). */
  readonly authorNick?: string;
  /** Files, served by the fake at the attachment URLs the message carries. */
  readonly attachments?: readonly AttachmentFile[];
}

/** A slash command use to dispatch as INTERACTION_CREATE, by the world's user in its channel unless told. */
export interface SlashCommand {
  readonly name: string;
  readonly options?: readonly CommandOptionJson[];
  readonly channelId?: string;
  readonly userId?: string;
}

/** The ids a dispatched interaction's answers are addressed with. */
export type DispatchedInteraction = InteractionIds;

/** A press of a button on a stored message, dispatched as INTERACTION_CREATE type 3. */
export interface ButtonPress {
  readonly messageId: string;
  /** The button's custom id; the message must have it, enabled. */
  readonly customId: string;
  /** Who presses: the world's user with their roles unless told; another user holds no roles unless `roles` says. */
  readonly userId?: string;
  readonly roles?: readonly string[];
}

/** The submission of the modal the bot showed in answer to `opener`, dispatched as INTERACTION_CREATE type 5 by the same user. */
export interface ModalSubmission {
  readonly opener: DispatchedInteraction;
  /** The text inputs' values by custom id; an optional input left out is submitted empty. */
  readonly values: Readonly<Record<string, string>>;
}
