import { permittedTools, type Requester } from '../tools/permissions.js';
import type { Tool } from '../tools/tool.js';
import type { ApprovalRule } from '../turn_state/approval_store.js';
import type { ConversationSettings } from './chat_settings.js';
import type { OverrideSettings } from './overrides_settings.js';
import type { MessagePlace } from './transport.js';
import type { LLMProvider } from '../llm/provider.js';
import type { ModelRoute } from '../recovery/model_route.js';

/** The `overrides` entry in force somewhere, with its place in the list (1-based), as /status names it. */
export interface AppliedOverride {
  readonly number: number;
  readonly override: OverrideSettings;
}

/**
 * The first `overrides` entry whose every `match` key holds for a message said in `channelId` at
 * `place`: a thread matches by its own id or its channel's, and by its channel's category.
 */
export function overrideAt(overrides: readonly OverrideSettings[], channelId: string, place: MessagePlace | undefined): AppliedOverride | undefined {
  const holds = (listed: readonly string[] | undefined, ...ids: (string | undefined)[]): boolean => listed === undefined || ids.some((id) => id !== undefined && listed.includes(id));
  const index = overrides.findIndex(
    ({ match }) => holds(match.guild_ids, place?.guildId) && holds(match.channel_ids, channelId, place?.parentChannelId) && holds(match.category_ids, place?.categoryId),
  );
  const override = overrides[index];
  return override === undefined ? undefined : { number: index + 1, override };
}

/** How /status names an entry: `override #2 (support channels)`. */
export function overrideLabel(applied: AppliedOverride): string {
  return `override #${applied.number}${applied.override.name === undefined ? '' : ` (${applied.override.name})`}`;
}

/**
 * The tools offered to `requester` in `channelId`: of those the entry in force names (every tool
 * without an entry or its `tools`), the ones the permissions let them use, each saying whether its
 * calls wait for a person's approval there (DESIGN §9.2): a channel's "always allow here" rule
 * (`allowed`) lets it run without asking; else the tool's own setting decides; else the default of
 * its effect class where the turn is (the entry's `approval_defaults`, else `tools.approval_defaults`).
 */
export function toolsOffered(
  tools: readonly Tool[],
  config: ConversationSettings,
  requester: Requester,
  channelId: string,
  here: AppliedOverride | undefined,
  allowed: readonly ApprovalRule[],
): Tool[] {
  const named = here?.override.tools;
  const permitted = permittedTools(named === undefined ? tools : tools.filter((tool) => named.includes(tool.name)), config.permissions, requester, channelId);
  return permitted.map((tool) => {
    const byDefault = here?.override.approval_defaults?.[tool.effect] ?? config.tools.approval_defaults[tool.effect];
    const approval = allowed.some((rule) => rule.toolName === tool.name) ? 'never' : (tool.approval ?? byDefault);
    return approval === tool.approval ? tool : { ...tool, approval };
  });
}

/** The configured models: the primary (`undefined` when none is configured) and its fallbacks, in order. */
export interface ConfiguredModels {
  readonly provider: LLMProvider | undefined;
  readonly fallbacks?: readonly LLMProvider[];
}

/**
 * The models a turn said where `here` applies may use, in the order they are tried (DESIGN
 * §5.4): those the entry's `models` names, in its order, else every configured model, the
 * primary first; the model an admin chose for the channel (`chosen`) goes first when it is one of
 * them, the others following in that order. `undefined` when no model is configured.
 */
export function modelsAt(models: ConfiguredModels, here: AppliedOverride | undefined, chosen?: string): ModelRoute | undefined {
  const { provider, fallbacks = [] } = models;
  if (provider === undefined) return undefined;
  const every = [provider, ...fallbacks];
  const offered = here?.override.models?.flatMap((name) => every.filter((model) => model.model === name)) ?? every;
  const [first, ...rest] = [...offered.filter((model) => model.model === chosen), ...offered.filter((model) => model.model !== chosen)];
  return first === undefined ? [provider, ...fallbacks] : [first, ...rest];
}
