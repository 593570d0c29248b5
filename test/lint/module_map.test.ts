import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

/** The messages the project's own lint config gives an import of `specifier` from `filePath`. */
async function importProblems(filePath: string, specifier: string): Promise<string[]> {
  // Limited to the import rules: a file that does not exist has no type information.
  const eslint = new ESLint({
    cwd: new URL('../../', import.meta.url).pathname,
    ruleFilter: ({ ruleId }) => ruleId === 'no-restricted-imports',
    overrideConfig: { languageOptions: { parserOptions: { projectService: false, project: null } } },
  });
  const [result] = await eslint.lintText(`import { probe } from '${specifier}';\nexport const used = probe;\n`, { filePath });
  return (result?.messages ?? []).map((message) => message.message);
}

describe('the module map (DESIGN §2), enforced by lint', () => {
  it.each([
    ['src/turn_state/sqlite/probe.ts', '../../engine/chat_turn.js', 'src/turn_state must not import src/engine'],
    ['src/turn_state/probe.ts', '../conversation/transport.js', 'src/turn_state must not import src/conversation'],
    ['src/engine/probe.ts', '../conversation/intake.js', 'src/engine must not import src/conversation'],
    ['src/conversation/probe.ts', '../discord/mention_policy.js', 'src/conversation must not import src/discord'],
    ['src/discord/probe.ts', '../console/console_sink.js', 'src/discord must not import src/console'],
    ['src/console/probe.ts', '../discord/discord_sink.js', 'src/console must not import src/discord'],
    ['src/llm/providers/probe.ts', '../../recovery/capacity_breaker.js', 'src/llm must not import src/recovery'],
    ['src/core/probe.ts', '../config/load.js', 'src/core must not import src/config'],
    ['src/tools/probe.ts', '../engine/chat_turn.js', 'src/tools must not import src/engine'],
    ['src/engine/probe.ts', '../app/run.js', 'src/engine must not import src/app'],
  ])('refuses an upward or sideways import: %s importing %s', async (file, specifier, message) => {
    const problems = await importProblems(file, specifier);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toContain(message);
  });

  it.each([
    ['src/app/probe.ts', '../turn_state/sqlite/file.js'],
    ['src/app/operator/probe.ts', '../../turn_state/postgres/pg_pool.js'],
    ['src/conversation/probe.ts', '../turn_state/sqlite/store_lock.js'],
    ['src/main.ts', './turn_state/postgres/open_pg_store.js'],
  ])('refuses a store backend from outside src/turn_state: %s importing %s', async (file, specifier) => {
    const problems = await importProblems(file, specifier);
    expect(problems).toEqual([expect.stringContaining('A store backend is reached through src/turn_state/open_store.ts alone')]);
  });

  it('refuses test doubles anywhere in src/', async () => {
    const problems = await importProblems('src/conversation/probe.ts', '../../test/support/recording_sink.js');
    expect(problems).toHaveLength(1);
    expect(problems[0]).toContain('Test doubles live in test/support; src/ never imports them.');
  });

  it.each([
    ['src/engine/probe.ts', '../turn_state/turn_store.js'],
    ['src/engine/probe.ts', './chat_turn.js'],
    ['src/conversation/probe.ts', '../engine/run_turn.js'],
    ['src/discord/probe.ts', '../conversation/transport.js'],
    ['src/app/probe.ts', '../discord/discord_sink.js'],
    ['src/turn_state/sqlite/probe.ts', '../ledger_types.js'],
    ['src/turn_state/probe.ts', './sqlite/open_store.js'],
    ['src/app/probe.ts', '../turn_state/open_store.js'],
    ['src/main.ts', './app/run.js'],
  ])('lets %s import %s, which points downward', async (file, specifier) => {
    expect(await importProblems(file, specifier)).toEqual([]);
  });
});
