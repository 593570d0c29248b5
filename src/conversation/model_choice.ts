/**
 * The model an admin chose for a channel (DESIGN §5.4): `/model` lists the channel's models and
 * picks the one its turns try first, the others following in their configured order; the choice
 * is kept in the store, so it holds across restarts and for every process sharing the store, and
 * each turn reads it as it starts.
 */
import { isAdmin } from '../tools/permissions.js';
import { modelsAt, overrideAt, type AppliedOverride } from './channel_overrides.js';
import type { ConversationDeps } from './conversation_deps.js';
import { TEXTS } from './notices/texts.js';
import { adminsOnlyText, modelChosenText, modelDefaultText, modelsHereText, noSuchModelText } from './notices/command_texts.js';
import { channelKey, type Inbound, type InboundMessage, postNotice } from './transport.js';

/** An admin's `/model`, as a transport hands it over. */
export type ModelCommand = Extract<Inbound, { readonly kind: 'model' }>;

/** What `/model NAME` takes as a return to the configured order. */
const DEFAULT_ORDER = 'default';

type ChoiceDeps = Pick<ConversationDeps, 'models' | 'logger'>;

/**
 * The model an admin chose for `channel`'s turns, as the store holds it now; `undefined` when
 * none was chosen, or when the store cannot say (logged: the configured order is used).
 */
export async function chosenModelIn(channel: Pick<InboundMessage, 'source' | 'channelId'>, deps: ChoiceDeps): Promise<string | undefined> {
  try {
    return (await deps.models.chosen(channelKey(channel)))?.model;
  } catch (error) {
    deps.logger.warn({ err: error, channel: channel.channelId }, 'the model chosen for the channel could not be read: its models are tried in their configured order');
    return undefined;
  }
}

/**
 * Answers `/model` at once: to an admin, the channel's models with the one in use, or the choice
 * made (a name that is none of the channel's models is refused, naming them; `default` forgets the
 * choice); anyone else is refused before anything is read. Never throws: a failure is logged and
 * answered.
 */
export async function modelCommand(command: ModelCommand, deps: Pick<ConversationDeps, 'config' | 'sink' | 'logger' | 'models' | 'provider' | 'fallbacks'>): Promise<void> {
  const { origin } = command;
  if (!isAdmin(deps.config.permissions, origin.authorId)) return postNotice(deps.sink, origin, null, 'rejected', adminsOnlyText('model'));
  const here = overrideAt(deps.config.overrides, origin.channelId, origin.place);
  const configured = modelsAt(deps, here)?.map((model) => model.model);
  if (configured === undefined) return postNotice(deps.sink, origin, null, 'failed', TEXTS.noModel);
  const channel = channelKey(origin);
  const wanted = command.model;
  try {
    if (wanted === undefined) {
      const chosen = (await deps.models.chosen(channel))?.model;
      const inUse = configured.includes(chosen ?? '') ? chosen : undefined;
      return postNotice(deps.sink, origin, null, 'status', modelsHereText(namesAt(deps, here, inUse), inUse !== undefined));
    }
    if (wanted.toLowerCase() === DEFAULT_ORDER) {
      await deps.models.clear(channel);
      return postNotice(deps.sink, origin, null, 'status', modelDefaultText(configured));
    }
    const model = configured.find((name) => name === wanted) ?? configured.find((name) => name.toLowerCase() === wanted.toLowerCase());
    if (model === undefined) return postNotice(deps.sink, origin, null, 'rejected', noSuchModelText(wanted, configured));
    await deps.models.choose(channel, model, `${origin.source}:${origin.authorId}`);
    deps.logger.info({ channel: origin.channelId, model, by: origin.authorId }, 'an admin chose the model of a channel');
    return postNotice(deps.sink, origin, null, 'status', modelChosenText(namesAt(deps, here, model)));
  } catch (error) {
    deps.logger.error({ err: error, command: 'model', user: origin.authorId }, 'an admin’s command failed');
    postNotice(deps.sink, origin, null, 'failed', TEXTS.commandFailed);
  }
}

/** The names of the models of the place, in the order they are tried with `chosen` first. */
function namesAt(deps: Pick<ConversationDeps, 'provider' | 'fallbacks'>, here: AppliedOverride | undefined, chosen: string | undefined): string[] {
  return (modelsAt(deps, here, chosen) ?? []).map((model) => model.model);
}
