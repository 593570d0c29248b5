import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseConfigText, renderConfigJsonSchema } from '../../src/app/config_schema.js';
import { CONFIG_SCHEMA_FILE } from '../../src/config/json_schema.js';

const root = new URL('../../', import.meta.url);
const read = (name: string): string => readFileSync(new URL(name, root), 'utf8');

describe('config.schema.json', () => {
  it('matches the zod schema it is generated from (run npm run config:schema when this fails)', () => {
    expect(read(CONFIG_SCHEMA_FILE)).toBe(renderConfigJsonSchema());
  });

  it('describes every setting and forbids unknown keys, like the loader', () => {
    type Node = { type?: string; description?: string; properties?: Record<string, Node>; additionalProperties?: boolean };
    const check = (node: Node, path: string): void => {
      expect(node.description, `${path} has a description`).toBeTruthy();
      if (node.type !== 'object' || node.properties === undefined) return;
      expect(node.additionalProperties, `${path} forbids unknown keys`).toBe(false);
      for (const [key, child] of Object.entries(node.properties ?? {})) check(child, path === '' ? key : `${path}.${key}`);
    };
    check(JSON.parse(read(CONFIG_SCHEMA_FILE)) as Node, '');
  });
});

describe('config.example.yml', () => {
  const example = read('config.example.yml');

  it('points editors at the schema on its first line', () => {
    expect(example.split('\n', 1)[0]).toBe('# yaml-language-server: $schema=./config.schema.json');
  });

  it('is a valid configuration', () => {
    expect(() => parseConfigText(example, 'config.example.yml', { DISCORD_TOKEN: 'token-from-env' })).not.toThrow();
  });
});
