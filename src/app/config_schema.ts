import { z } from 'zod';
import { loadConfigWith, parseConfigWith, type LoadConfigOptions, type LoadedConfig } from '../config/load.js';
import { seconds } from '../config/schema_parts.js';
import { chatSection } from '../conversation/chat_settings.js';
import { limitsSection } from '../conversation/limits_settings.js';
import { overridesSection, unknownOverrideModels, unknownOverrideTools } from '../conversation/overrides_settings.js';
import { loggingSection } from '../core/logging_settings.js';
import { accessSection } from '../discord/access_settings.js';
import { discordSection } from '../discord/discord_settings.js';
import type { Environment } from '../config/interpolate.js';
import { configuredModelNames, llmSection } from '../llm/llm_settings.js';
import { llmRecoverySection } from '../recovery/settings.js';
import { metricsSection } from './metrics/metrics_settings.js';
import { webSection } from './web/web_settings.js';
import { telemetrySection } from './telemetry/telemetry_settings.js';
import { permissionsSection } from '../tools/permissions_settings.js';
import { configuredToolNames, toolsSection } from '../tools/tools_settings.js';
import { turnStateSection } from '../turn_state/turn_state_settings.js';

/**
 * The whole configuration, composed of the sections each module owns (DESIGN §11). An empty
 * file is valid: every field has a default or is optional.
 */
export const configSchema = z
  .strictObject({
    logging: loggingSection.prefault({}),
    startup_timeout_seconds: seconds(
      'How long the bot keeps trying, at start, to reach Discord and the PostgreSQL store when the network fails it (a refused connection, ' +
        'a name that does not resolve, a 5xx, a timeout), waiting longer between attempts; past it the program exits with status 1',
      60,
    ),
    discord: discordSection.prefault({}),
    llm: llmSection.prefault({}),
    llm_recovery: llmRecoverySection.prefault({}),
    chat: chatSection.prefault({}),
    turn_state: turnStateSection.prefault({}),
    tools: toolsSection.prefault({}),
    permissions: permissionsSection.prefault({}),
    metrics: metricsSection.prefault({}),
    web: webSection.prefault({}),
    telemetry: telemetrySection.prefault({}),
    access: accessSection.prefault({}),
    limits: limitsSection.prefault({}),
    overrides: overridesSection,
  })
  .superRefine((config, context) => {
    for (const { path, message } of unknownOverrideTools(config.overrides, configuredToolNames(config.tools))) context.addIssue({ code: 'custom', path: ['overrides', ...path], message });
    for (const { path, message } of unknownOverrideModels(config.overrides, configuredModelNames(config.llm))) context.addIssue({ code: 'custom', path: ['overrides', ...path], message });
  })
  .describe('Holdfast configuration');

/** The validated configuration, with every default filled in. */
export type Config = z.output<typeof configSchema>;

/**
 * Finds, reads, interpolates and validates Holdfast's configuration.
 * @throws {ConfigError} listing every problem found, each with its key path.
 */
export function loadConfig(options: LoadConfigOptions): LoadedConfig<Config> {
  return loadConfigWith(configSchema, options);
}

/**
 * Parses Holdfast configuration YAML held in memory; `file` names it in problems.
 * @throws {ConfigError} listing every problem found.
 */
export function parseConfigText(text: string, file: string, env: Environment): Config {
  return parseConfigWith(configSchema, text, file, env);
}

/** The repository path of the generated schema, relative to the project root. */
export const CONFIG_SCHEMA_FILE = 'config.schema.json';

/**
 * config.schema.json as it must read: the JSON Schema of what a configuration file may contain,
 * generated from {@link configSchema} so that the two can never disagree.
 */
export function renderConfigJsonSchema(): string {
  const json = z.toJSONSchema(configSchema, { io: 'input', target: 'draft-2020-12' });
  return `${JSON.stringify({ ...json, title: 'Holdfast configuration' }, null, 2)}\n`;
}
