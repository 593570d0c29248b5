import { ApplicationCommandOptionType, type ApplicationCommandData, type ChatInputCommandInteraction, type Client } from 'discord.js';
import type { Inbound, InboundMessage } from '../conversation/transport.js';

/** The slash commands the bot registers: the same commands the console takes as text. */
export const SLASH_COMMANDS: readonly ApplicationCommandData[] = [
  { name: 'stop', description: 'Stop the request running in this channel.' },
  {
    name: 'resume',
    description: 'Continue your saved request in this channel.',
    options: [{ name: 'turn', description: 'Which saved request (see /status); your latest by default.', type: ApplicationCommandOptionType.String as const, required: false }],
  },
  { name: 'status', description: 'What is running and what is saved in this channel.' },
];

/** Registers the commands in the listed servers (effective at once), or globally when none are listed. */
export async function registerSlashCommands(client: Client<true>, guildIds: readonly string[]): Promise<void> {
  if (guildIds.length === 0) {
    await client.application.commands.set(SLASH_COMMANDS);
    return;
  }
  for (const guildId of guildIds) await client.application.commands.set(SLASH_COMMANDS, guildId);
}

/**
 * A slash command as the typed command the conversation takes (its notices go to its user
 * alone, see CommandAnswers; a resumed request's reply to the channel); `undefined` for a command
 * that is not the bot's.
 */
export function slashCommand(interaction: ChatInputCommandInteraction): Inbound | undefined {
  const roles = interaction.member === null ? [] : Array.isArray(interaction.member.roles) ? interaction.member.roles : [...interaction.member.roles.cache.keys()];
  const origin: InboundMessage = { source: 'discord', channelId: interaction.channelId, authorId: interaction.user.id, authorRoleIds: roles, messageId: interaction.id, text: `/${interaction.commandName}` };
  switch (interaction.commandName) {
    case 'stop':
      return { kind: 'stop', origin };
    case 'status':
      return { kind: 'status', origin };
    case 'resume':
      return { kind: 'resume', origin, turnId: interaction.options.getString('turn') ?? undefined, spoken: false };
    default:
      return undefined;
  }
}
