import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import { createNodeResolver, importX } from 'eslint-plugin-import-x';
import { MODULE_LAYERS, moduleMapPatterns } from './eslint.module_map.js';

/** DESIGN §3: identity comes from the IdFactory port, never from crypto's own. */
const NO_AMBIENT_IDENTITY = ['crypto', 'node:crypto'].map((name) => ({
  name,
  importNames: ['randomUUID'],
  message: 'Use IdFactory.newId() (src/core/ids.ts).',
}));

/** DESIGN §3: time and identity come from the Clock and IdFactory ports, never from ambient globals. */
const ambientTimeAndIdentity = {
  'no-restricted-properties': [
    'error',
    { object: 'Date', property: 'now', message: 'Use Clock.now() (src/core/clock.ts).' },
    { object: 'performance', property: 'now', message: 'Use Clock.monotonicNow() (src/core/clock.ts).' },
    { object: 'Math', property: 'random', message: 'Use the IdFactory port (src/core/ids.ts) or take randomness as a dependency.' },
    { object: 'crypto', property: 'randomUUID', message: 'Use IdFactory.newId() (src/core/ids.ts).' },
  ],
  'no-restricted-syntax': [
    'error',
    { selector: "NewExpression[callee.name='Date'][arguments.length=0]", message: 'Use new Date(clock.now()) (src/core/clock.ts).' },
    { selector: "CallExpression[callee.name='Date']", message: 'Use new Date(clock.now()) (src/core/clock.ts).' },
  ],
  'no-restricted-globals': [
    'error',
    { name: 'setTimeout', message: 'Wait with Clock.sleep(ms, signal) (src/core/clock.ts).' },
    { name: 'setInterval', message: 'Loop on Clock.sleep(ms, signal) (src/core/clock.ts).' },
  ],
};

export default tseslint.config(
  { ignores: ['dist/', 'coverage/', 'node_modules/', 'data/'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: {
        projectService: { allowDefaultProject: ['eslint.config.js', 'eslint.module_map.js'] },
        tsconfigRootDir: import.meta.dirname,
      },
    },
    rules: {
      eqeqeq: ['error', 'always'],
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      '@typescript-eslint/switch-exhaustiveness-check': ['error', { considerDefaultExhaustiveForUnions: false, requireDefaultForNonUnion: true }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', ignoreRestSiblings: true }],
    },
  },
  { files: ['src/**/*.ts'], ignores: ['src/core/**'], rules: ambientTimeAndIdentity },
  ...MODULE_LAYERS.map((layer) => ({
    files: [`src/${layer}/**/*.ts`],
    rules: {
      'no-restricted-imports': ['error', { paths: layer === 'core' ? [] : NO_AMBIENT_IDENTITY, patterns: moduleMapPatterns(layer) }],
    },
  })),
  {
    // DESIGN §2: cycles are bugs. Specifiers say `.js`; the files are `.ts`.
    files: ['src/**/*.ts'],
    plugins: { 'import-x': importX },
    settings: {
      'import-x/resolver-next': [createNodeResolver({ extensions: ['.ts', '.js'], extensionAlias: { '.js': ['.ts', '.js'] } })],
      'import-x/parsers': { '@typescript-eslint/parser': ['.ts'] },
      'import-x/extensions': ['.ts'],
    },
    rules: { 'import-x/no-cycle': ['error', { ignoreExternal: true }] },
  },
  {
    files: ['src/main.ts'],
    rules: { 'no-restricted-imports': ['error', { paths: NO_AMBIENT_IDENTITY, patterns: moduleMapPatterns('app') }] },
  },
);
