import type { LLMProvider } from '../llm/provider.js';
import type { ModelRoute } from '../recovery/model_route.js';
import type { AppliedOverride } from './channel_overrides.js';

/** The configured models: the primary (`undefined` when none is configured) and its fallbacks, in order. */
export interface ConfiguredModels {
  readonly provider: LLMProvider | undefined;
  readonly fallbacks?: readonly LLMProvider[];
}

/**
 * The models a turn said where `here` applies may use, in the order they are tried (DESIGN
 * §5.4): those the entry's `models` names, in its order, else every configured model, the
 * primary first. `undefined` when no model is configured.
 */
export function modelsAt(models: ConfiguredModels, here: AppliedOverride | undefined): ModelRoute | undefined {
  const { provider, fallbacks = [] } = models;
  if (provider === undefined) return undefined;
  const every = [provider, ...fallbacks];
  const [first, ...rest] = here?.override.models?.flatMap((name) => every.filter((model) => model.model === name)) ?? every;
  return first === undefined ? [provider, ...fallbacks] : [first, ...rest];
}
