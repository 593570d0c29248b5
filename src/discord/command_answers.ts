import { MessageFlags, type ButtonInteraction, type ChatInputCommandInteraction, type ModalSubmitInteraction } from 'discord.js';

/** An interaction the bot answers to its user alone: a slash command, or a press or modal of a request for approval. */
export type AnsweredInteraction = ChatInputCommandInteraction | ButtonInteraction | ModalSubmitInteraction;
import type { Clock } from '../core/clock.js';
import { SAFE_MENTIONS } from './mention_policy.js';

/** Discord accepts answers to a command for 15 minutes; a little less leaves room for the request. */
const ANSWERABLE_MS = 14 * 60_000;

interface OpenCommand {
  readonly interaction: AnsweredInteraction;
  /** The deferred reply; it rejects when Discord refused the acknowledgement. */
  readonly acknowledged: Promise<void>;
  readonly openedAt: number;
  answered: boolean;
}

/**
 * Slash commands whose answers go to their user alone. A command is acknowledged at once with a
 * deferred ephemeral reply; the first notice answering it fills that reply, later ones follow up,
 * all visible only to the person who used the command. Replies of turns still go to the channel.
 */
export class CommandAnswers {
  readonly #open = new Map<string, OpenCommand>();

  constructor(private readonly clock: Clock) {}

  /**
   * Acknowledges a command (Discord shows "thinking…" to its user alone) and keeps it open for
   * its answers. Rejects when Discord refused the acknowledgement; its answers then go to the channel.
   */
  open(interaction: AnsweredInteraction): Promise<void> {
    this.#forgetExpired();
    const acknowledged = interaction.deferReply({ flags: MessageFlags.Ephemeral }).then(() => undefined);
    this.#open.set(interaction.id, { interaction, acknowledged, openedAt: this.clock.monotonicNow(), answered: false });
    return acknowledged;
  }

  /**
   * Answers command `id` with `content`, to its user alone. `false` when that is not possible
   * (no such open command, its acknowledgement was refused): the caller posts in the channel.
   */
  async answer(id: string, content: string): Promise<boolean> {
    const command = this.#open.get(id);
    if (command === undefined) return false;
    try {
      await command.acknowledged;
    } catch {
      this.#open.delete(id);
      return false;
    }
    if (command.answered) {
      await command.interaction.followUp({ content, flags: MessageFlags.Ephemeral, allowedMentions: SAFE_MENTIONS });
    } else {
      command.answered = true;
      await command.interaction.editReply({ content, allowedMentions: SAFE_MENTIONS });
    }
    return true;
  }

  /** Answers a command at once with `content`, to its user alone, and keeps nothing open: the command does not run. */
  async refuse(interaction: AnsweredInteraction, content: string): Promise<void> {
    await interaction.reply({ content, flags: MessageFlags.Ephemeral, allowedMentions: SAFE_MENTIONS });
  }

  #forgetExpired(): void {
    const now = this.clock.monotonicNow();
    for (const [id, command] of this.#open) if (now - command.openedAt >= ANSWERABLE_MS) this.#open.delete(id);
  }
}
