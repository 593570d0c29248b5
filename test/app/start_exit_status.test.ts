import { describe, expect, inject, it } from 'vitest';
import { startProgram, type BackgroundProgram } from '../support/background_program.js';
import { FakeDiscord } from '../support/fake_discord/server.js';
import { closedPortUrl } from '../support/fake_llm/server.js';
import { freshPgConnection, refusedPgUrls } from '../support/postgres_schema.js';
import { runProgram, useProgramsKilledAfterEach } from '../support/program.js';
import { useTempDir } from '../support/temp_dir.js';

/** The JSON log lines of a run whose message begins with `start`. */
function logged(stderr: string, start: string): Record<string, unknown>[] {
  return stderr
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .filter((line) => typeof line['msg'] === 'string' && line['msg'].startsWith(start));
}

/** A REST root on 127.0.0.1 where nothing listens, and its port. */
async function nothingListens(): Promise<{ api: string; port: number }> {
  const url = new URL(await closedPortUrl());
  return { api: `http://127.0.0.1:${url.port}/api`, port: Number(url.port) };
}

// Real processes: generous limits that only catch hangs.
describe('how the bot’s start ends when Discord or its PostgreSQL store cannot be reached or refuses it', { timeout: 60_000 }, () => {
  const temp = useTempDir();
  const track = useProgramsKilledAfterEach<BackgroundProgram>();
  const discordConfig = (api: string, token: string, timeoutSeconds: number): string =>
    temp.write('config.yml', `discord:\n  token: ${token}\n  api_url: ${api}\nlogging:\n  level: info\n  format: json\nstartup_timeout_seconds: ${timeoutSeconds}\n`);
  const postgresConfig = (url: string, schema: string, timeoutSeconds = 60): string =>
    temp.write(
      'config.yml',
      `turn_state:\n  backend: postgres\n  postgres: { url: "${url}", schema: ${schema} }\nlogging:\n  level: info\n  format: json\nstartup_timeout_seconds: ${timeoutSeconds}\n`,
    );

  it('tries a Discord where nothing listens again, logging each attempt, and exits 1 when startup_timeout_seconds runs out', async () => {
    const { api } = await nothingListens();
    const run = await runProgram(['--config', discordConfig(api, 'secret-token-123', 2)], { cwd: temp.path() });

    expect(run.status).toBe(1);
    const retries = logged(run.stderr, `could not reach Discord at ${api}: trying again in `);
    expect(retries.length).toBeGreaterThanOrEqual(1);
    expect(retries[0]).toMatchObject({ level: 40, target: `Discord at ${api}`, attempt: 1, cause: expect.stringContaining('ECONNREFUSED') as unknown });
    const lastLine = run.stderr.trimEnd().split('\n').at(-1);
    expect(lastLine).toMatch(
      new RegExp(`^holdfast: could not reach Discord at ${api.replaceAll('.', '\\.')} for [0-9.]+ s \\(${retries.length + 1} attempts; startup_timeout_seconds: 2\\): connect ECONNREFUSED`),
    );
    expect(run.stderr).not.toContain('secret-token-123');
  });

  it('exits 2 at once, without trying again, when Discord refuses the token: at the gateway (close code 4004) or over REST (401)', async () => {
    const discord = await FakeDiscord.start();
    try {
      const refusedLine = `holdfast: could not log in to Discord with discord.token at ${discord.restUrl}: Discord refused the token (authentication failed): check discord.token`;
      const atGateway = await runProgram(['--config', discordConfig(discord.restUrl, 'a-wrong-token', 60)], { cwd: temp.path() });
      expect(atGateway.status).toBe(2);
      expect(atGateway.stderr.trimEnd().split('\n').at(-1)).toBe(refusedLine);
      expect(discord.identifies).toHaveLength(1);

      discord.failNext((request) => request.path.endsWith('/gateway/bot'), { status: 401 });
      const overRest = await runProgram(['--config', discordConfig(discord.restUrl, FakeDiscord.TOKEN, 60)], { cwd: temp.path() });
      expect(overRest.status).toBe(2);
      expect(overRest.stderr.trimEnd().split('\n').at(-1)).toBe(refusedLine);
      expect(discord.identifies).toHaveLength(1);
      expect(logged(atGateway.stderr + overRest.stderr, 'could not reach Discord')).toEqual([]);
    } finally {
      await discord.close();
    }
  });

  it('tries again when Discord answers 5xx, and becomes ready once it answers', async () => {
    const discord = await FakeDiscord.start();
    try {
      // discord.js sends a request 4 times before it gives up on a 5xx: the first attempt fails, the second works.
      discord.failNext((request) => request.path.endsWith('/gateway/bot'), { status: 503, times: 4 });
      const bot = track(startProgram(['--config', discordConfig(discord.restUrl, FakeDiscord.TOKEN, 45)], { cwd: temp.path() }));
      await bot.logged('connected to Discord');
      expect(logged(bot.stderr(), `could not reach Discord at ${discord.restUrl}: trying again in `)).toEqual([expect.objectContaining({ attempt: 1, cause: 'Service Unavailable' })]);
      bot.kill('SIGTERM');
      expect(await bot.exited).toBe(0);
    } finally {
      await discord.close();
    }
  });

  it('gives a login that hangs on a gateway out of reach up when startup_timeout_seconds runs out, and ends with 1', async () => {
    const { port } = await nothingListens();
    const discord = await FakeDiscord.start({ gatewayUrl: `ws://127.0.0.1:${port}` });
    try {
      const run = await runProgram(['--config', discordConfig(discord.restUrl, FakeDiscord.TOKEN, 2)], { cwd: temp.path() });

      expect(run.status).toBe(1);
      expect(run.stderr.trimEnd().split('\n').at(-1)).toMatch(
        new RegExp(`^holdfast: could not reach Discord at ${discord.restUrl.replaceAll('.', '\\.')} for [0-9.]+ s \\(1 attempt; startup_timeout_seconds: 2\\): no answer in time$`),
      );
      expect(discord.identifies).toEqual([]);
    } finally {
      await discord.close();
    }
  });

  it('becomes ready when Discord comes up while it tries again', async () => {
    const { api, port } = await nothingListens();
    const bot = track(startProgram(['--config', discordConfig(api, FakeDiscord.TOKEN, 45)], { cwd: temp.path() }));
    await bot.logged(`could not reach Discord at ${api}: trying again in `);
    const discord = await FakeDiscord.start({ port });
    try {
      await bot.logged('connected to Discord');
      bot.kill('SIGTERM');
      expect(await bot.exited).toBe(0);
      expect(discord.identifies).toHaveLength(1);
    } finally {
      await discord.close();
    }
  });

  it('ends the wait at SIGTERM and exits 0', async () => {
    const { api } = await nothingListens();
    const bot = track(startProgram(['--config', discordConfig(api, FakeDiscord.TOKEN, 600)], { cwd: temp.path() }));
    await bot.logged(`could not reach Discord at ${api}: trying again in `);
    bot.kill('SIGTERM');

    expect(await bot.exited).toBe(0);
    expect(logged(bot.stderr(), 'stopped while starting')).toHaveLength(1);
  });

  it('tries a PostgreSQL server where nothing listens again and exits 1 when startup_timeout_seconds runs out', async () => {
    const { port } = await nothingListens();
    const run = await runProgram(['--jsonl', '--config', postgresConfig(`postgres://holdfast:pw@127.0.0.1:${port}/bot`, 'holdfast', 2)], { cwd: temp.path() });

    expect(run.status).toBe(1);
    const where = `PostgreSQL schema holdfast at 127.0.0.1:${port}/bot`;
    expect(logged(run.stderr, `could not reach ${where}: trying again in `).length).toBeGreaterThanOrEqual(1);
    expect(run.stderr.trimEnd().split('\n').at(-1)).toMatch(
      new RegExp(`^holdfast: could not reach ${where.replaceAll('.', '\\.')} for [0-9.]+ s \\(\\d+ attempts?; startup_timeout_seconds: 2\\): connect ECONNREFUSED`),
    );
    expect(run.stdout).toBe('');
    expect(logged(run.stderr, 'the PostgreSQL store could not open')).toEqual([]);
  });

  it('exits 2 at once when the PostgreSQL server refuses the password or has no such database', async () => {
    const server = new URL(inject('postgresUrl'));
    const { schema } = freshPgConnection();

    for (const [url, sqlState] of refusedPgUrls()) {
      const run = await runProgram(['--jsonl', '--config', postgresConfig(url.href, schema)], { cwd: temp.path() });
      expect(run.status).toBe(2);
      const where = `PostgreSQL schema ${schema} at 127.0.0.1:${server.port}${url.pathname}`;
      const lastLine = run.stderr.trimEnd().split('\n').at(-1) ?? '';
      expect(lastLine.startsWith(`holdfast: the database server refused the store (${where}): `)).toBe(true);
      expect(lastLine.endsWith(`(${sqlState}); check turn_state.postgres.url`)).toBe(true);
      expect(logged(run.stderr, 'could not reach')).toEqual([]);
      expect(run.stderr).not.toContain(server.password);
    }
  });
});
