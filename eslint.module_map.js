/**
 * DESIGN §2: the module map. Each folder of src/ lists the folders it must not import: imports
 * point downward only, and the two transports never import each other.
 */
/** @type {Record<string, readonly string[]>} */
const LAYERS = {
  core: ['config', 'llm', 'recovery', 'turn_state', 'tools', 'engine', 'conversation', 'discord', 'console', 'app'],
  config: ['llm', 'recovery', 'turn_state', 'tools', 'engine', 'conversation', 'discord', 'console', 'app'],
  llm: ['recovery', 'turn_state', 'tools', 'engine', 'conversation', 'discord', 'console', 'app'],
  recovery: ['turn_state', 'tools', 'engine', 'conversation', 'discord', 'console', 'app'],
  turn_state: ['recovery', 'tools', 'engine', 'conversation', 'discord', 'console', 'app'],
  tools: ['recovery', 'engine', 'conversation', 'discord', 'console', 'app'],
  engine: ['conversation', 'discord', 'console', 'app'],
  conversation: ['discord', 'console', 'app'],
  discord: ['console', 'app'],
  console: ['discord', 'app'],
  app: [],
};

/** An import that leaves src/ for the tests' doubles. */
const TEST_IMPORT = { regex: '^(\\.\\./)+test/', message: 'Test doubles live in test/support; src/ never imports them.' };

/** An import of a store backend from outside src/turn_state: the store is reached through src/turn_state/open_store.ts alone. */
const BACKEND_IMPORT = {
  regex: '^(\\.\\.?/)+turn_state/(sqlite|postgres)/',
  message: 'A store backend is reached through src/turn_state/open_store.ts alone (DESIGN §2): import turn_state/sqlite/ and turn_state/postgres/ only from inside src/turn_state.',
};

/**
 * The `no-restricted-imports` patterns of one folder of src/.
 * @param {string} layer
 */
export function moduleMapPatterns(layer) {
  return [
    TEST_IMPORT,
    ...(layer === 'turn_state' ? [] : [BACKEND_IMPORT]),
    ...(LAYERS[layer] ?? []).map((forbidden) => ({
      regex: `^\\.\\.?/(.*/)?${forbidden}/`,
      message: `src/${layer} must not import src/${forbidden} (DESIGN §2: imports point downward; transports never import each other).`,
    })),
  ];
}

/** The folders of src/ the map knows, lowest first. */
export const MODULE_LAYERS = Object.keys(LAYERS);
