import { isMap, isNode, isScalar, LineCounter, parseDocument, visit, type Document } from 'yaml';
import type { ConfigProblem, KeyPath } from './problems.js';

/**
 * How far aliases may expand a document, as the yaml package counts it (each use of an anchor,
 * weighted by the aliases inside it): plenty for reusing a block of settings, far too little for a
 * "billion laughs" file that expands without end.
 */
const MAX_ALIAS_COUNT = 100;

/** A parsed YAML configuration file that can say where each key path stands in it. */
export interface YamlSource {
  /** The document as plain data; `undefined` for an empty file. */
  readonly tree: unknown;
  /** The problem with its file, line and column filled in from the document. */
  locate(problem: ConfigProblem): ConfigProblem;
}

/** Parses `text` as YAML; throws nothing: syntax errors and aliases that cannot be expanded come back as problems. */
export function parseYamlSource(text: string, file: string): { source: YamlSource } | { problems: ConfigProblem[] } {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, uniqueKeys: true, prettyErrors: false });
  if (doc.errors.length > 0) {
    return {
      problems: doc.errors.map((error) => ({
        kind: 'yaml_syntax',
        file,
        ...position(lineCounter, error.pos[0]),
        message: `YAML syntax error: ${firstLine(error.message)}`,
      })),
    };
  }
  const alias = firstBadAlias(doc);
  if (alias !== undefined) {
    const at = alias.offset === undefined ? {} : position(lineCounter, alias.offset);
    return { problems: [{ kind: 'yaml_alias', file, ...at, message: alias.message }] };
  }
  let tree: unknown;
  try {
    tree = doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT });
  } catch (error) {
    const reason = error instanceof Error ? firstLine(error.message) : String(error);
    return { problems: [{ kind: 'yaml_alias', file, message: `YAML aliases cannot be expanded (at most ${MAX_ALIAS_COUNT} uses): ${reason}` }] };
  }
  const locate = (problem: ConfigProblem): ConfigProblem => {
    const at = problem.kind === 'unknown_key' || problem.kind === 'removed_key' || problem.kind === 'llmcord_key' ? 'key' : 'value';
    const offset = problem.path === undefined ? undefined : offsetOf(doc, problem.path, at);
    if (offset === undefined) return { ...problem, file };
    return { ...problem, file, ...position(lineCounter, offset) };
  };
  return { source: { tree: tree ?? undefined, locate } };
}

/** The first alias that names no anchor before it, or one inside the very node it names (which would never end). */
function firstBadAlias(doc: Document): { readonly offset: number | undefined; readonly message: string } | undefined {
  let bad: { readonly offset: number | undefined; readonly message: string } | undefined;
  visit(doc, {
    Alias(_key, alias, path) {
      const source = alias.resolve(doc);
      if (source === undefined) bad = { offset: alias.range?.[0], message: `YAML alias *${alias.source} names no anchor before it` };
      else if (path.includes(source)) bad = { offset: alias.range?.[0], message: `YAML alias *${alias.source} is inside the node it names, so it would never end` };
      return bad === undefined ? undefined : visit.BREAK;
    },
  });
  return bad;
}

function position(lineCounter: LineCounter, offset: number): { line: number; column: number } {
  const { line, col } = lineCounter.linePos(offset);
  return { line, column: col };
}

function firstLine(message: string): string {
  return message.split('\n', 1)[0] ?? message;
}

/** Where the key (for an unknown key) or the value at `path` starts; else its nearest ancestor. */
function offsetOf(doc: Document, path: KeyPath, at: 'key' | 'value'): number | undefined {
  if (at === 'key' && path.length > 0) {
    const parent: unknown = path.length === 1 ? doc.contents : doc.getIn(path.slice(0, -1), true);
    const key = path[path.length - 1];
    const pair = isMap(parent) ? parent.items.find((item) => isScalar(item.key) && item.key.value === key) : undefined;
    if (isNode(pair?.key)) return pair.key.range?.[0];
  }
  for (let depth = path.length; depth > 0; depth--) {
    const node: unknown = doc.getIn(path.slice(0, depth), true);
    if (isNode(node)) return node.range?.[0];
  }
  return isNode(doc.contents) ? doc.contents.range?.[0] : undefined;
}
