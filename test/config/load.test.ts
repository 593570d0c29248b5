import { describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { configSchema, loadConfig, parseConfigText } from '../../src/app/config_schema.js';
import { resolveConfigSource } from '../../src/config/load.js';
import { formatConfigProblem, isConfigError, type ConfigProblem } from '../../src/config/problems.js';
import { useTempDir } from '../support/temp_dir.js';

function problemsOf(run: () => unknown): ConfigProblem[] {
  try {
    run();
  } catch (error) {
    if (isConfigError(error)) return [...error.problems];
    throw error;
  }
  throw new Error('expected a ConfigError');
}

const linesOf = (run: () => unknown): string[] => problemsOf(run).map(formatConfigProblem);

describe('loading the configuration', () => {
  const temp = useTempDir();

  it('fills every default when there is no file at all', () => {
    const loaded = loadConfig({ env: {}, cwd: temp.path() });
    expect(loaded.source).toEqual({ kind: 'defaults' });
    expect(Object.keys(loaded.config)).toEqual(Object.keys(configSchema.shape));
    expect(loaded.config).toMatchObject({
      logging: { level: 'info', format: 'auto' },
      discord: {},
      llm: { provider: 'openai', max_tokens: 4096, request_timeout_seconds: 60, stream_stall_timeout_seconds: 60, headers: {} },
      turn_state: { db_path: 'data/turn_state/turns.sqlite3' },
    });
  });

  it('treats an empty file and a file of comments as all defaults', () => {
    const defaults = loadConfig({ env: {}, cwd: temp.path() }).config;
    expect(parseConfigText('', 'config.yml', {})).toEqual(defaults);
    expect(parseConfigText('# nothing set yet\n', 'config.yml', {})).toEqual(defaults);
  });

  it('takes --config first, then HOLDFAST_CONFIG, then ./config.yml, then defaults', () => {
    const cwd = temp.path();
    expect(resolveConfigSource({ env: {}, cwd })).toEqual({ kind: 'defaults' });
    temp.write('config.yml', 'logging: { level: debug }\n');
    expect(resolveConfigSource({ env: {}, cwd })).toEqual({ kind: 'file', path: join(cwd, 'config.yml'), chosenBy: './config.yml' });
    expect(resolveConfigSource({ env: { HOLDFAST_CONFIG: 'env.yml' }, cwd })).toEqual({ kind: 'file', path: join(cwd, 'env.yml'), chosenBy: 'HOLDFAST_CONFIG' });
    expect(resolveConfigSource({ env: { HOLDFAST_CONFIG: '' }, cwd })).toMatchObject({ chosenBy: './config.yml' });
    expect(resolveConfigSource({ configPath: '/etc/hf.yml', env: { HOLDFAST_CONFIG: 'env.yml' }, cwd })).toEqual({ kind: 'file', path: '/etc/hf.yml', chosenBy: '--config' });
  });

  it('reads the chosen file, interpolates the environment and keeps defaults for what it leaves out', () => {
    const file = temp.write('bot.yml', 'logging:\n  level: debug\ndiscord:\n  token: ${DISCORD_TOKEN}\n');
    const { config, source } = loadConfig({ configPath: file, env: { DISCORD_TOKEN: 'abc.def' }, cwd: temp.path() });
    expect(source).toEqual({ kind: 'file', path: file, chosenBy: '--config' });
    expect(config).toMatchObject({
      logging: { level: 'debug', format: 'auto' },
      discord: { token: 'abc.def' },
      turn_state: { db_path: 'data/turn_state/turns.sqlite3' },
    });
  });

  it('reads a key written with no value as left out, so a section with everything commented out keeps its defaults', () => {
    const config = parseConfigText('discord:\n  # token: ${DISCORD_TOKEN}\nlogging:\n  level:\n  format: json\n', 'c.yml', {});
    expect(config.discord.token).toBeUndefined();
    expect(config.discord.channels).toEqual([]);
    expect(config.logging).toEqual({ level: 'info', format: 'json' });
  });

  it('reads an empty token as no token, so ${DISCORD_TOKEN:-} switches Discord off', () => {
    expect(parseConfigText('discord:\n  token: ${DISCORD_TOKEN:-}\n', 'c.yml', {}).discord.token).toBeUndefined();
  });

  it('reports an unreadable file with the rule that named it', () => {
    const missing = join(temp.path(), 'missing.yml');
    expect(problemsOf(() => loadConfig({ env: { HOLDFAST_CONFIG: missing }, cwd: temp.path() }))).toEqual([
      { kind: 'unreadable_file', file: missing, message: expect.stringMatching(/^cannot read the configuration file \(named by HOLDFAST_CONFIG\): ENOENT/) as unknown },
    ]);
  });

  it('reports YAML syntax errors with line and column', () => {
    expect(linesOf(() => parseConfigText('logging:\n  level: [info\n', 'c.yml', {}))).toEqual([expect.stringMatching(/^c\.yml:3:1: YAML syntax error: /) as unknown]);
    expect(linesOf(() => parseConfigText('logging: {}\nlogging: {}\n', 'c.yml', {}))).toEqual(['c.yml:2:1: YAML syntax error: Map keys must be unique']);
  });

  it('refuses an alias inside the node it names, one naming no anchor, and a billion laughs, each in one line; reuse stays allowed', () => {
    expect(linesOf(() => parseConfigText('a: &a [*a]\n', 'c.yml', {}))).toEqual(['c.yml:1:8: YAML alias *a is inside the node it names, so it would never end']);
    expect(linesOf(() => parseConfigText('logging:\n  level: &l\n    - *l\n', 'c.yml', {}))).toEqual(['c.yml:3:7: YAML alias *l is inside the node it names, so it would never end']);
    expect(linesOf(() => parseConfigText('logging:\n  level: *nope\n', 'c.yml', {}))).toEqual(['c.yml:2:10: YAML alias *nope names no anchor before it']);
    const names = [...'abcdefghi'];
    const laughs = names.map(
      (name, index) =>
        `${name}: &${name} [${Array<string>(9)
          .fill(index === 0 ? '"lol"' : `*${names[index - 1] ?? ''}`)
          .join(', ')}]\n`,
    );
    expect(linesOf(() => parseConfigText(laughs.join(''), 'c.yml', {}))).toEqual([
      'c.yml: YAML aliases cannot be expanded (at most 100 uses): Excessive alias count indicates a resource exhaustion attack',
    ]);
    const reused = parseConfigText('llm_recovery:\n  backoff_base_seconds: &s 2\n  backoff_cap_seconds: *s\n', 'c.yml', {});
    expect(reused.llm_recovery).toMatchObject({ backoff_base_seconds: 2, backoff_cap_seconds: 2 });
  });

  it('rejects a file that is not a mapping of sections', () => {
    expect(linesOf(() => parseConfigText('- logging\n', 'c.yml', {}))).toEqual(['c.yml:1:1: (top level): expected a mapping of section names to settings']);
    expect(linesOf(() => parseConfigText('just words\n', 'c.yml', {}))).toEqual(['c.yml:1:1: (top level): expected a mapping of section names to settings']);
  });

  it('names every unknown key with its position and the keys that are allowed there', () => {
    const text = 'logging:\n  level: info\n  colour: red\nextras: 1\n';
    expect(linesOf(() => parseConfigText(text, 'c.yml', {}))).toEqual([
      'c.yml:3:3: logging.colour: unknown key (expected one of: level, format)',
      `c.yml:4:1: extras: unknown key (expected one of: ${Object.keys(configSchema.shape).join(', ')})`,
    ]);
  });

  it('refuses a removed key with what became of it, at its position, not as merely unknown', () => {
    const text = 'chat:\n  history_db_path: old/history.sqlite3\ntools:\n  memory:\n    db_path: old/memory.sqlite3\n    recall_limit: 5\n';
    const problems = problemsOf(() => parseConfigText(text, 'c.yml', {}));
    expect(problems.map((problem) => problem.kind)).toEqual(['removed_key', 'removed_key']);
    expect(problems.map(formatConfigProblem)).toEqual([
      'c.yml:2:3: chat.history_db_path: removed; conversation history now lives in the one store file ' +
        'turn_state.db_path (an old file at data/history/history.sqlite3 is imported at the next start; move a file ' +
        'kept elsewhere there first) — delete this key',
      'c.yml:5:5: tools.memory.db_path: removed; memory notes now live in the one store file turn_state.db_path (an ' +
        'old file at data/memory/memory.sqlite3 is imported at the next start; move a file kept elsewhere there first) ' +
        '— delete this key',
    ]);
    expect(linesOf(() => parseConfigText('turn_state:\n  history_db_path: x\n', 'c.yml', {}))[0]).toMatch(/^c\.yml:2:3: turn_state\.history_db_path: unknown key \(expected one of: /);
  });

  it('names every value of the wrong type or outside its choices, with what was expected and what it got', () => {
    const text = 'logging:\n  level: verbose\n  format: 3\ndiscord:\n  token: 12345\nturn_state: [a]\n';
    expect(linesOf(() => parseConfigText(text, 'c.yml', {}))).toEqual([
      'c.yml:2:10: logging.level: expected one of "fatal", "error", "warn", "info", "debug", "trace", "silent"; got "verbose"',
      'c.yml:3:11: logging.format: expected one of "auto", "json", "pretty"; got 3',
      'c.yml:5:10: discord.token: expected a string, got 12345',
      'c.yml:6:13: turn_state: expected a mapping, got a list',
    ]);
  });

  it('shortens a long value in a message and names lists and mappings by their kind', () => {
    const long = 'x'.repeat(100);
    expect(linesOf(() => parseConfigText(`logging:\n  level: ${long}\n  format: [1]\ndiscord:\n  token: { a: 1 }\n`, 'c.yml', {}))).toEqual([
      `c.yml:2:10: logging.level: expected one of "fatal", "error", "warn", "info", "debug", "trace", "silent"; got "${'x'.repeat(56)}...`,
      'c.yml:3:11: logging.format: expected one of "auto", "json", "pretty"; got a list',
      'c.yml:5:10: discord.token: expected a string, got a mapping',
    ]);
  });

  it("reports a failed constraint with zod's reason and the value", () => {
    expect(linesOf(() => parseConfigText('turn_state:\n  db_path: ""\n', 'c.yml', {}))).toEqual([expect.stringMatching(/^c\.yml:2:12: turn_state\.db_path: Too small: .*; got ""$/) as unknown]);
  });

  it('names the variable a rejected value came from, never the value, which may be a secret', () => {
    const env = { X: 'hunter2-supersecret', LEVEL: 'hunter2-loud', NAME: 'hunter2 name', TOOL: 'hunter2-tool' };
    const tool = (name: string) => `    - name: "${name}"\n      description: d\n      url: https://a.example\n      effect: read\n`;
    const text = `discord:\n  api_url: \${X}\nlogging:\n  level: \${LEVEL}\ntools:\n  http:\n${tool('${NAME}')}${tool('${TOOL}')}${tool('${TOOL}')}`;
    const lines = linesOf(() => parseConfigText(text, 'c.yml', env));
    expect(lines).toEqual([
      'c.yml:2:12: discord.api_url: Invalid URL; got the value of "${X}"',
      'c.yml:4:10: logging.level: expected one of "fatal", "error", "warn", "info", "debug", "trace", "silent"; got the value of "${LEVEL}"',
      'c.yml:7:13: tools.http[0].name: letters, digits, _ and - only, at most 64; got the value of "${NAME}"',
      'c.yml:15:13: tools.http[2].name: the tool name "${TOOL}" is already taken',
    ]);
    for (const line of lines) for (const value of Object.values(env)) expect(line).not.toContain(value);
  });

  it('reports a missing environment variable once, with its key path, alongside other problems', () => {
    const text = 'discord:\n  token: ${DISCORD_TOKEN}\nturn_state:\n  db_path: ${STATE_DIR}\nlogging:\n  level: loud\n';
    expect(linesOf(() => parseConfigText(text, 'c.yml', {}))).toEqual([
      'c.yml:2:10: discord.token: environment variable DISCORD_TOKEN is not set',
      'c.yml:4:12: turn_state.db_path: environment variable STATE_DIR is not set',
      'c.yml:6:10: logging.level: expected one of "fatal", "error", "warn", "info", "debug", "trace", "silent"; got "loud"',
    ]);
  });
});
