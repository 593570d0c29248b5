import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { CONFIG_SCHEMA_FILE, parseConfigText, renderConfigJsonSchema } from '../../src/app/config_schema.js';

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

  it('mentions every key of config.schema.json, set or in a comment', () => {
    const mentioned = keyPaths(parse(uncommented(example)) as unknown);
    const unmentioned = schemaKeyPaths(JSON.parse(read(CONFIG_SCHEMA_FILE)) as SchemaNode).filter((key) => !mentioned.some((path) => matches(key, path)));
    expect(unmentioned).toEqual([]);
  });

  it('is still a valid configuration when every setting in a comment is uncommented, its tools needing no variable set', () => {
    const keys = { OPENAI_KEY_1: 'key-1', OPENAI_KEY_2: 'key-2', FALLBACK_KEY_1: 'key-3', HOLDFAST_WEB_TOKEN: 'a-web-console-token' };
    expect(() => parseConfigText(uncommented(example), 'config.example.yml (uncommented)', keys)).not.toThrow();
  });
});

/** The example with each commented setting (`# key: …`, `# - key: …`, a model's `# gpt-4.1-mini: …`) made a setting, at the indentation it is written at; the editor's schema line stays a comment. */
function uncommented(text: string): string {
  return text.replace(/^(\s*)# ((?:\s*- )?\s*(?!yaml-language-server)[A-Za-z_][\w.-]*:(?: |$))/gm, '$1$2');
}

/** The key paths of a parsed configuration: `llm.fallbacks[].model`, `permissions.tools.open_ticket.allow_roles`. */
function keyPaths(node: unknown, prefix = ''): string[] {
  if (Array.isArray(node)) return node.flatMap((item) => keyPaths(item, `${prefix}[]`));
  if (typeof node !== 'object' || node === null) return [];
  return Object.entries(node).flatMap(([key, value]) => {
    // A record's own names (a model's, `gpt-4.1-mini`) may hold dots, which separate keys here.
    const name = key.replaceAll('.', '_');
    const path = prefix === '' ? name : `${prefix}.${name}`;
    return [path, ...keyPaths(value, path)];
  });
}

interface SchemaNode {
  readonly properties?: Readonly<Record<string, SchemaNode>>;
  readonly items?: SchemaNode;
  readonly additionalProperties?: SchemaNode | boolean;
  readonly anyOf?: readonly SchemaNode[];
  readonly oneOf?: readonly SchemaNode[];
}

/** Every key the schema allows, a record's own names written `*`: `permissions.tools.*.allow_roles`. */
function schemaKeyPaths(node: SchemaNode, prefix = ''): string[] {
  const forms = [...(node.anyOf ?? []), ...(node.oneOf ?? [])].flatMap((form) => schemaKeyPaths(form, prefix));
  const properties = Object.entries(node.properties ?? {}).flatMap(([key, child]) => {
    const path = prefix === '' ? key : `${prefix}.${key}`;
    return [path, ...schemaKeyPaths(child, path)];
  });
  const items = node.items === undefined ? [] : schemaKeyPaths(node.items, `${prefix}[]`);
  const record = typeof node.additionalProperties === 'object' ? schemaKeyPaths(node.additionalProperties, `${prefix}.*`) : [];
  return [...new Set([...forms, ...properties, ...items, ...record])];
}

function matches(schemaPath: string, path: string): boolean {
  const pattern = schemaPath.replace(/[.[\]]/g, (char) => `\\${char}`).replaceAll('*', '[^.]+');
  return new RegExp(`^${pattern}$`).test(path);
}
