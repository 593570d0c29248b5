/**
 * What the bot answers to commands, to the person who used them: `/help`, a `/word` that names no
 * command, and the admins' commands (`/model`, `/turns`, `/resolve`). The sentences of turns and
 * saved requests are in texts.ts; together the two files hold every sentence said in a channel.
 */
import { usageFormsText } from './usage_texts.js';

// /help, and what is no command.

/**
 * `/help`: the commands people can use where they asked (`source`: `/turns` and `/resolve` are
 * Discord's slash commands), the admins' own listed only to an admin.
 */
export function helpText(source: string, admin: boolean): string {
  const lines = [
    'Commands:',
    '• `/help`: this list',
    '• `/status`: what is running here, your saved requests and how the models are doing',
    '• `/stop`: stop the request running here',
    '• `resume` or `/resume [id]`: continue your saved request (`/status` shows the ids)',
    '• `/approve [call]` or `/deny [call] [note]`: answer a request to run a tool call here',
    '• `/usage`: what you used today and this month, and the limits on you here',
    'Anything else is a message for the model.',
  ];
  if (admin) lines.push('Admins: `/model` lists the models used here, `/model NAME` picks the one tried first, `/model default` goes back to the configured order.');
  if (admin) lines.push(`Admins: ${usageFormsText(source)} shows what a user, a channel or this server used, with the ten largest spenders this month.`);
  if (admin && source === 'discord') lines.push('Admins: `/turns` lists the requests that need attention; `/resolve` records whether an uncertain call took effect.');
  return lines.join('\n');
}

/** A line shaped as a command that names none. */
export function unknownCommandText(command: string): string {
  return `Unknown command \`${command}\` — /help lists them.`;
}

// The admins' commands.

/** An admins' command asked by someone who is not one. */
export function adminsOnlyText(command: string): string {
  return `Only the bot’s admins can use /${command}.`;
}

/** Model names as a list people read: `` `a`, `b` and `c` ``. */
function modelNamesText(names: readonly string[]): string {
  const quoted = names.map((name) => `\`${name}\``);
  return quoted.length < 2 ? quoted.join('') : `${quoted.slice(0, -1).join(', ')} and ${quoted.at(-1) ?? ''}`;
}

/** The order `models` are tried in: the first, then the others when it is overloaded. */
function modelOrderText(models: readonly string[]): string {
  const [first = '', ...rest] = models;
  return `\`${first}\`${rest.length === 0 ? '' : ` (then ${modelNamesText(rest)} when it is overloaded)`}`;
}

/** `/model`: the channel's models in the order they are tried, the first marked in use, as an admin chose it (`chosen`) or as configured. */
export function modelsHereText(models: readonly string[], chosen: boolean): string {
  const lines = models.map((name, index) => `• \`${name}\`${index === 0 ? `: in use${chosen ? ', chosen by an admin' : ''}` : ''}`);
  return ['Models here, in the order they are tried (`/model NAME` picks the one tried first, `/model default` goes back to the configured order):', ...lines].join('\n');
}

/** `/model NAME`: the channel's models from its next request on. */
export function modelChosenText(models: readonly string[]): string {
  return `From the next request on, this channel uses ${modelOrderText(models)}.`;
}

/** `/model default`: the channel's models in their configured order again. */
export function modelDefaultText(models: readonly string[]): string {
  return `This channel is back to the configured order: ${modelOrderText(models)}.`;
}

/** `/model NAME` with a name that is none of the channel's models. */
export function noSuchModelText(wanted: string, models: readonly string[]): string {
  return `There is no model \`${wanted}\` here: the models of this channel are ${modelNamesText(models)}.`;
}

/** What `/status` says of the model an admin chose for the channel. */
export function chosenModelText(model: string): string {
  return `Model here: \`${model}\`, chosen by an admin (\`/model default\` goes back to the configured order).`;
}

/** A verdict the operator's store refused, and why. */
export function notRecordedText(why: string): string {
  return `Not recorded: ${why}.`;
}
