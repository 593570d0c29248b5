import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { closedPortUrl } from '../support/fake_llm/server.js';
import { recordLoadedPackages, type PackageRecorder } from '../support/loaded_packages.js';
import { McpTarget } from '../support/mcp_target.js';
import { freshPgConnection } from '../support/postgres_schema.js';
import { runProgram, startJsonLinesProgram, useProgramsKilledAfterEach } from '../support/program.js';
import { openTestStoreFile } from '../support/store_file.js';
import { useTempDir } from '../support/temp_dir.js';

/** The packages that cost the most to load, each needed by one part of the program only. */
const HEAVY = ['discord.js', 'pg', '@modelcontextprotocol/sdk', 'prom-client'];
const heavyIn = (recorder: PackageRecorder): string[] => recorder.packages().filter((name) => HEAVY.includes(name));
const openTelemetryIn = (recorder: PackageRecorder): string[] => recorder.packages().filter((name) => name.startsWith('@opentelemetry/'));

// Real processes: generous limits that only catch hangs.
describe('what the program loads: the Discord transport, PostgreSQL, MCP, metrics, the web console and OpenTelemetry only where they run', { timeout: 60_000 }, () => {
  const temp = useTempDir();
  const track = useProgramsKilledAfterEach();

  /** A directory of its own under the test's, and a recorder of what the programs run there load. */
  function place(name: string): { dir: string; recorder: PackageRecorder } {
    const dir = join(temp.path(), name);
    mkdirSync(dir, { recursive: true });
    return { dir, recorder: recordLoadedPackages(dir) };
  }

  it('--version, --help and an operator command’s --help load none of them', async () => {
    for (const args of [['--version'], ['--help'], ['turns', 'list', '--help']]) {
      const { dir, recorder } = place(args.join('-'));
      const run = await runProgram(args, { cwd: dir, env: recorder.env });
      expect(run.status).toBe(0);
      expect(heavyIn(recorder)).toEqual([]);
    }
  });

  it('doctor, turns list and backup on a SQLite store load its driver and none of them', async () => {
    for (const args of [['doctor'], ['turns', 'list'], ['backup', 'copy.sqlite3']]) {
      const { dir, recorder } = place(args[0] ?? 'command');
      await openTestStoreFile(dir).close();
      const run = await runProgram(args, { cwd: dir, env: recorder.env });
      expect(run.stderr).not.toContain('holdfast:');
      expect(recorder.packages()).toContain('better-sqlite3');
      expect(heavyIn(recorder)).toEqual([]);
    }
  });

  it('the bot in the console on SQLite is ready without any of them, nor the web console', async () => {
    const { dir, recorder } = place('console');
    const config = temp.write('console/config.yml', 'logging:\n  level: warn\n');
    const bot = track(startJsonLinesProgram(['--config', config], { cwd: dir, env: recorder.env }));
    await bot.waitFor((event) => event['type'] === 'ready', 'the bot to be ready');
    expect(recorder.packages()).toContain('better-sqlite3');
    expect(heavyIn(recorder)).toEqual([]);
    expect(openTelemetryIn(recorder)).toEqual([]);
    expect(recorder.chunks()).toEqual(expect.arrayContaining(['bot_process', 'console_transport']));
    expect(recorder.chunks()).not.toContain('web_server');
  });

  it('loads OpenTelemetry only with telemetry.otlp_endpoint set', async () => {
    const { dir, recorder } = place('telemetry');
    const config = temp.write('telemetry/config.yml', `logging:\n  level: warn\ntelemetry:\n  otlp_endpoint: ${await closedPortUrl()}\n`);
    const bot = track(startJsonLinesProgram(['--config', config], { cwd: dir, env: recorder.env }));
    await bot.waitFor((event) => event['type'] === 'ready', 'the bot to be ready');
    expect(openTelemetryIn(recorder)).toEqual(expect.arrayContaining(['@opentelemetry/api', '@opentelemetry/exporter-trace-otlp-proto', '@opentelemetry/sdk-trace-base']));
    expect(heavyIn(recorder)).toEqual([]);
  });

  it('loads each where it runs: metrics, the web console and the MCP SDK when configured, pg for a PostgreSQL store, discord.js for Discord', async () => {
    const mcp = await McpTarget.start();
    try {
      const { dir, recorder } = place('metrics-mcp');
      const config = temp.write(
        'metrics-mcp/config.yml',
        `logging:\n  level: warn\nmetrics:\n  listen: 127.0.0.1:0\nweb:\n  listen: 127.0.0.1:0\ntools:\n  builtin: []\n  mcp:\n    - name: target\n      url: ${mcp.url}\n`,
      );
      const bot = track(startJsonLinesProgram(['--config', config], { cwd: dir, env: recorder.env }));
      await bot.waitFor((event) => event['type'] === 'ready', 'the bot to be ready');
      expect(heavyIn(recorder)).toEqual(['@modelcontextprotocol/sdk', 'prom-client']);
      expect(recorder.chunks()).toContain('web_server');
    } finally {
      await mcp.close();
    }

    const postgres = place('postgres');
    const { url, schema } = freshPgConnection();
    const pgConfig = temp.write('postgres/config.yml', `logging:\n  level: warn\nturn_state:\n  backend: postgres\n  postgres: { url: "${url}", schema: ${schema} }\n`);
    await runProgram(['doctor', '--config', pgConfig], { cwd: postgres.dir, env: postgres.recorder.env });
    expect(heavyIn(postgres.recorder)).toEqual(['pg']);

    const discord = place('discord');
    const discordConfig = temp.write('discord/config.yml', `logging:\n  level: warn\nstartup_timeout_seconds: 0.5\ndiscord:\n  token: abc\n  api_url: ${await closedPortUrl()}\n`);
    await runProgram(['--config', discordConfig], { cwd: discord.dir, env: discord.recorder.env });
    expect(heavyIn(discord.recorder)).toEqual(['discord.js']);
  });
});
