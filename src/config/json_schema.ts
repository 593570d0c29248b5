import { z } from 'zod';
import { configSchema } from './schema.js';

/** The repository path of the generated schema, relative to the project root. */
export const CONFIG_SCHEMA_FILE = 'config.schema.json';

/**
 * config.schema.json as it must read: the JSON Schema of what a configuration file may contain,
 * generated from {@link configSchema} so that the two can never disagree.
 */
export function renderConfigJsonSchema(): string {
  const schema = z.toJSONSchema(configSchema, { io: 'input', target: 'draft-2020-12' });
  return `${JSON.stringify({ ...schema, title: 'Holdfast configuration' }, null, 2)}\n`;
}
