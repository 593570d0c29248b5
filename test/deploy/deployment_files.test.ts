import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { parseConfigText, type Config } from '../../src/app/config_schema.js';
import { EXIT } from '../../src/app/exit_status.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const read = (path: string): string => readFileSync(`${ROOT}${path}`, 'utf8');

/** The configuration file at `path`, as the bot would load it with `env`. */
const loadConfig = (path: string, env: Record<string, string>): Config => parseConfigText(read(path), path, env);

/**
 * The longest a SIGTERM'd bot may take by default: it starts nothing more, but a running tool call
 * settles within its timeout, the longest of the built-in web_fetch, an HTTP tool and an MCP server.
 */
function shutdownGraceSeconds(): number {
  const tools = `tools:\n  http: [{ name: t, description: d, url: 'https://example.com', effect: read }]\n  mcp: [{ name: m, command: x }]\n`;
  const { web_fetch, http, mcp } = parseConfigText(tools, 'tools.yml', {}).tools;
  return Math.max(web_fetch.timeout_seconds, ...http.map((tool) => tool.timeout_seconds), ...mcp.map((server) => server.timeout_seconds));
}

/** `90`, `90s`, `2min`, `1m30s` in seconds. */
function seconds(text: string): number {
  const parts = [...text.matchAll(/(\d+)\s*(min|m|s)?/g)];
  expect(parts.map((part) => part[0]).join('')).toBe(text.replace(/\s/g, ''));
  return parts.reduce((sum, [, n, unit]) => sum + Number(n) * (unit === 'min' || unit === 'm' ? 60 : 1), 0);
}

interface Instruction {
  readonly keyword: string;
  readonly args: string;
}

/** The Dockerfile's stages, each its instructions (continuation lines joined, comments left out). */
function dockerStages(text: string): Instruction[][] {
  const lines = text
    .replace(/\\\n/g, ' ')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'));
  const stages: Instruction[][] = [];
  for (const line of lines) {
    const [keyword = '', ...rest] = line.split(/\s+/);
    const instruction = { keyword: keyword.toUpperCase(), args: rest.join(' ') };
    if (instruction.keyword === 'FROM') stages.push([]);
    stages.at(-1)?.push(instruction);
  }
  return stages;
}

const argsOf = (stage: readonly Instruction[], keyword: string): string[] => stage.filter((i) => i.keyword === keyword).map((i) => i.args);

const stages = dockerStages(read('Dockerfile'));
/** The stage the image runs. */
const run = stages.at(-1) ?? [];
/** Where the image's program reads its configuration. */
const configPath = /HOLDFAST_CONFIG=(\S+)/.exec(argsOf(run, 'ENV').join(' '))?.[1] ?? '';

describe('the image', () => {
  const imageConfig = loadConfig('deploy/config.yml', { DISCORD_TOKEN: 'the-token' });

  it('builds with the dev dependencies in one stage and runs the tarball installed with --omit=dev in the last', () => {
    expect(stages.length).toBeGreaterThanOrEqual(2);
    const build = stages.slice(0, -1).flat();
    expect(argsOf(build, 'RUN').join('\n')).toMatch(/\bnpm ci\b(?![^\n]*--omit)/);
    expect(argsOf(build, 'RUN').join('\n')).toMatch(/\bnpm pack\b/);
    expect(argsOf(run, 'COPY').some((args) => args.startsWith('--from=') && args.includes('.tgz'))).toBe(true);
    expect(argsOf(run, 'RUN').join('\n')).toMatch(/\bnpm install --omit=dev\b[^\n]*\.tgz/);
    // The folder's own package.json lets better-sqlite3 build its native module, as in test/app/packaged_install.test.ts.
    expect(argsOf(run, 'RUN').join('\n')).toContain(`'{ "private": true, "allowScripts": { "better-sqlite3": true } }' > package.json`);
    expect(argsOf(run, 'RUN').join('\n')).not.toMatch(/\bnpm ci\b/);
  });

  it('runs as a user other than root, keeps its store in the /data volume, and ships a configuration that puts it there', () => {
    const user = argsOf(run, 'USER').at(-1);
    expect(user).toBeDefined();
    expect(user).not.toMatch(/^(root|0)(:|$)/);
    expect(argsOf(run, 'VOLUME')).toContain('/data');
    expect(configPath).not.toBe('');
    expect(argsOf(run, 'COPY')).toContain(`deploy/config.yml ${configPath}`);
    expect(imageConfig.turn_state.db_path).toMatch(/^\/data\//);
    expect(imageConfig.discord.token).toBe('the-token');
  });

  it('checks its health on /healthz at the port the shipped configuration serves metrics on', () => {
    const { host, port } = imageConfig.metrics.listen ?? { host: '', port: 0 };
    expect(host).toBe('0.0.0.0');
    expect(argsOf(run, 'HEALTHCHECK').join('\n')).toContain(`127.0.0.1:${port}/healthz`);
    expect(argsOf(run, 'EXPOSE')).toContain(String(port));
  });

  it('starts the program under an init, which hands SIGTERM on to node', () => {
    expect(argsOf(run, 'RUN').join('\n')).toMatch(/apt-get install[^\n]*\btini\b/);
    expect(JSON.parse(argsOf(run, 'ENTRYPOINT').at(-1) ?? '[]')).toEqual(['/usr/bin/tini', '--', 'holdfast']);
    expect(argsOf(run, 'STOPSIGNAL').at(-1) ?? 'SIGTERM').toBe('SIGTERM');
  });
});

interface ComposeService {
  readonly profiles?: string[];
  readonly environment?: Record<string, string>;
  readonly volumes?: string[];
  readonly stop_grace_period?: string;
  readonly depends_on?: Record<string, { condition: string; required?: boolean }>;
  readonly logging?: { readonly driver: string; readonly options?: Record<string, string> };
}

describe('compose.yaml', () => {
  const compose = parse(read('compose.yaml')) as { services: Record<string, ComposeService> };
  const { holdfast: bot, postgres } = compose.services;
  const mount = (service: ComposeService | undefined, target: string): string | undefined => service?.volumes?.map((volume) => volume.split(':')).find(([, at]) => at === target)?.[0];
  const botConfigFile = mount(bot, configPath)?.replace(/^\.\//, '') ?? '';
  const botEnv = { DISCORD_TOKEN: 'the-token', POSTGRES_PASSWORD: 'pw' };

  it('runs the bot without a profile, on SQLite in its /data volume, with the image’s configuration path', () => {
    expect(bot?.profiles).toBeUndefined();
    expect(mount(bot, '/data')).toBe('holdfast-data');
    expect(botConfigFile).not.toBe('');
    const config = loadConfig(botConfigFile, botEnv);
    expect(config.turn_state).toMatchObject({ backend: 'sqlite', db_path: expect.stringMatching(/^\/data\//) as unknown });
  });

  it('puts PostgreSQL under a profile, and points the bot’s turn_state.postgres.url at that service when its store is postgres', () => {
    expect(postgres?.profiles).toEqual(['postgres']);
    expect(bot?.depends_on?.['postgres']).toEqual({ condition: 'service_healthy', required: false });
    expect(Object.keys(bot?.environment ?? {})).toEqual(expect.arrayContaining(['HOLDFAST_STORE', 'DISCORD_TOKEN']));
    expect(bot?.environment?.['POSTGRES_PASSWORD']).toBe(postgres?.environment?.['POSTGRES_PASSWORD']);
    const config = loadConfig(botConfigFile, { ...botEnv, HOLDFAST_STORE: 'postgres' });
    expect(config.turn_state.backend).toBe('postgres');
    const url = new URL(config.turn_state.postgres?.url ?? '');
    expect({ host: url.hostname, port: url.port, user: url.username, password: url.password, database: url.pathname.slice(1) }).toEqual({
      host: 'postgres',
      port: '5432',
      user: postgres?.environment?.['POSTGRES_USER'],
      password: 'pw',
      database: postgres?.environment?.['POSTGRES_DB'],
    });
    expect(config.metrics.listen).toEqual(loadConfig('deploy/config.yml', botEnv).metrics.listen);
  });

  it('gives the bot longer to stop than its shutdown takes', () => {
    expect(seconds(bot?.stop_grace_period ?? '10s')).toBeGreaterThan(shutdownGraceSeconds());
  });

  it('rotates the bot’s log by size, as docs/operations.md says', () => {
    expect(bot?.logging).toEqual({ driver: 'json-file', options: { 'max-size': '50m', 'max-file': '5' } });
    expect(read('docs/operations.md')).toContain('compose.yaml rotates at 50 MB, keeping 5 files');
  });
});

describe('deploy/holdfast.service', () => {
  const text = read('deploy/holdfast.service');
  const directives = text
    .split('\n')
    .map((line) => /^([A-Za-z]+)=(.*)$/.exec(line.trim()))
    .filter((match) => match !== null)
    .map(([, key = '', value = '']) => ({ key, value }));
  const values = (key: string): string[] => directives.filter((d) => d.key === key).map((d) => d.value);

  it('restarts on failure but not after status 2, stops later than the bot’s shutdown, and keeps its state in /var/lib/holdfast', () => {
    expect(values('Restart')).toEqual(['on-failure']);
    expect(values('RestartPreventExitStatus').join(' ').split(/\s+/)).toContain(String(EXIT.usage));
    expect(seconds(values('TimeoutStopSec').at(-1) ?? '90s')).toBeGreaterThan(shutdownGraceSeconds());
    expect(values('StateDirectory')).toEqual(['holdfast']);
    expect(values('WorkingDirectory')).toEqual(['/var/lib/holdfast']);
    expect(values('User').length + values('DynamicUser').length).toBeGreaterThan(0);
    expect(values('User')).not.toContain('root');
    expect(values('EnvironmentFile')).toEqual(['/etc/holdfast/holdfast.env']);
    expect(values('ExecStart')).toEqual(['/usr/bin/env holdfast']);
    expect(values('Environment')).toContain('PATH=/opt/holdfast/node_modules/.bin:/usr/local/bin:/usr/bin:/bin');
  });

  it('passes systemd-analyze verify without a warning, where systemd is installed', async () => {
    const verified = await promisify(execFile)('systemd-analyze', ['verify', `${ROOT}deploy/holdfast.service`]).then(
      ({ stdout, stderr }) => ({ status: 0, output: stdout + stderr }),
      (error: NodeJS.ErrnoException & { code?: string | number; stdout?: string; stderr?: string }) => {
        if (error.code === 'ENOENT') return undefined;
        return { status: error.code, output: `${error.stdout ?? ''}${error.stderr ?? ''}` };
      },
    );
    // Without the tool, the directives above are all that can be checked.
    if (verified !== undefined) expect(verified).toEqual({ status: 0, output: '' });
  });
});
