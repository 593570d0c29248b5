import { z } from 'zod';

/** The repository path of the generated schema, relative to the project root. */
export const CONFIG_SCHEMA_FILE = 'config.schema.json';

/**
 * config.schema.json as it must read: the JSON Schema of what a configuration file may contain,
 * generated from `schema` so that the two can never disagree.
 */
export function renderJsonSchema(schema: z.ZodType): string {
  const json = z.toJSONSchema(schema, { io: 'input', target: 'draft-2020-12' });
  return `${JSON.stringify({ ...json, title: 'Holdfast configuration' }, null, 2)}\n`;
}
