import { EventEmitter } from 'node:events';
import { type AddressInfo, createServer } from 'node:net';
import { join } from 'node:path';
import { PassThrough, Readable, Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../src/app/run.js';
import { useTempDir } from '../support/temp_dir.js';
import { capturedIo } from '../support/captured_io.js';
import { OtlpReceiver } from '../support/otlp_receiver.js';
import { closedPortUrl } from '../support/fake_llm/server.js';
import { openTestStore, startingWith } from '../support/turn_store.js';
import { lockStoreFile } from '../../src/turn_state/sqlite/store_lock.js';

const io = (cwd: string, env: Record<string, string> = {}): ReturnType<typeof capturedIo> => capturedIo(cwd, { env });

describe('runCli', () => {
  const temp = useTempDir();

  it('prints help and the version on stdout', async () => {
    const help = io(temp.path());
    expect(await runCli(['--help'], help.io)).toBe(0);
    expect(help.stdout()).toMatch(/^Usage: holdfast \[options\]/);
    const version = io(temp.path());
    expect(await runCli(['--version'], version.io)).toBe(0);
    expect(version.stdout()).toMatch(/^holdfast \d+\.\d+\.\d+\n$/);
  });

  it('exits 2 on a bad argument and points at --help', async () => {
    const run = io(temp.path());
    expect(await runCli(['--nope'], run.io)).toBe(2);
    expect(run.stderr()).toBe("holdfast: unknown option '--nope'\nTry 'holdfast --help' for the options.\n");
  });

  it('exits 2 with one line per configuration problem and no stack trace', async () => {
    const file = temp.write('bad.yml', 'logging:\n  level: loud\n  colour: red\n');
    const run = io(temp.path());
    expect(await runCli(['--config', file], run.io)).toBe(2);
    expect(run.stderr().trimEnd().split('\n')).toEqual([
      `holdfast: ${file}:2:10: logging.level: expected one of "fatal", "error", "warn", "info", "debug", "trace", "silent"; got "loud"`,
      `holdfast: ${file}:3:3: logging.colour: unknown key (expected one of: level, format)`,
    ]);
  });

  it('logs the loaded configuration as JSON, runs the console until its input ends, and exits 0', async () => {
    const run = io(temp.path());
    expect(await runCli([], run.io)).toBe(0);
    const logLine = run
      .stderr()
      .split('\n')
      .find((line) => line.includes('configuration loaded'));
    expect(JSON.parse(logLine ?? '')).toMatchObject({ config: 'defaults', adapter: { kind: 'console', reason: 'no_discord_token' } });
    expect(run.stdout()).toMatch(/^Holdfast is ready\./);
  });

  it('runs on Discord when a token is configured, exiting 1 when it cannot reach Discord within startup_timeout_seconds, and in the console with --jsonl', async () => {
    const closed = await closedPortUrl();
    temp.write('config.yml', `discord:\n  token: \${DISCORD_TOKEN}\n  api_url: ${closed}\nlogging:\n  level: warn\nstartup_timeout_seconds: 0.5\n`);
    const discord = io(temp.path(), { DISCORD_TOKEN: 'secret-abc' });
    expect(await runCli([], discord.io)).toBe(1);
    expect(discord.stderr()).toMatch(/^holdfast: could not reach Discord at http:\/\/127\.0\.0\.1:\d+\/v1 for /m);
    expect(discord.stderr()).not.toContain('secret-abc');
    const jsonl = io(temp.path(), { DISCORD_TOKEN: 'abc' });
    expect(await runCli(['--jsonl'], jsonl.io)).toBe(0);
    expect(jsonl.stdout()).toBe('{"type":"ready"}\n');
  });

  it('stops waiting for a PostgreSQL server that does not answer at SIGTERM, exits 0 and says it stopped while starting', async () => {
    const port = new URL(await closedPortUrl()).port;
    const config = temp.write('config.yml', `turn_state:\n  backend: postgres\n  postgres: { url: "postgres://holdfast:pw@127.0.0.1:${port}/bot" }\nstartup_timeout_seconds: 600\n`);
    const signals = new EventEmitter();
    const logged: string[] = [];
    const stderr = new Writable({
      write(chunk: Buffer, _encoding, done) {
        logged.push(chunk.toString('utf8'));
        // The first retry shows the bot waiting for its store: the operator stops it then.
        if (chunk.toString('utf8').includes('trying again in')) signals.emit('SIGTERM');
        done();
      },
    });
    const status = await runCli(['--jsonl', '--config', config], { stdin: Readable.from([]), stdout: { write: () => true }, stderr, env: {}, cwd: temp.path(), signals });
    expect(status).toBe(0);
    expect(logged.join('')).toContain('stopped while starting: SIGINT or SIGTERM came while the bot waited for Discord or its store');
  });

  it('traces each message to telemetry.otlp_endpoint while it runs and sends what it holds before it exits, its credentials kept out of the log', async () => {
    const collector = await OtlpReceiver.start();
    try {
      const run = io(temp.path(), { OTLP_AUTHORIZATION: 'Bearer collector-secret-123' });
      const config = temp.write('config.yml', `telemetry:\n  otlp_endpoint: ${collector.url}\n  headers:\n    authorization: \${OTLP_AUTHORIZATION}\n`);
      expect(await runCli(['--jsonl', '--config', config], { ...run.io, stdin: Readable.from(['What is milk?\n']) })).toBe(0);
      expect(collector.spans.map((span) => [span.name, span.attributes['holdfast.message.kind']])).toEqual([['holdfast.message', 'message']]);
      expect(collector.requests[0]?.headers['authorization']).toBe('Bearer collector-secret-123');
      expect(run.stderr()).toContain('traces go to the OTLP endpoint');
      expect(run.stderr()).not.toContain('collector-secret-123');
    } finally {
      await collector.close();
    }
  });

  it('serves the web console while it runs when web.listen is set, and exits 2 with one line naming the address when it cannot listen there', async () => {
    const served = io(temp.path(), { HOLDFAST_WEB_TOKEN: 'a-console-token-0123456789' });
    const config = (listen: string) => temp.write('config.yml', `web:\n  listen: ${listen}\n  token: \${HOLDFAST_WEB_TOKEN}\n`);
    expect(await runCli(['--config', config('127.0.0.1:0')], served.io)).toBe(0);
    expect(served.stderr()).toMatch(/"component":"web","url":"http:\/\/127\.0\.0\.1:\d+","msg":"web console at http:\/\/127\.0\.0\.1:\d+"/);
    expect(served.stderr()).not.toContain('a-console-token-0123456789');

    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    try {
      const port = (taken.address() as AddressInfo).port;
      const refused = io(temp.path(), { HOLDFAST_WEB_TOKEN: 'a-console-token-0123456789' });
      expect(await runCli(['--config', config(`127.0.0.1:${port}`)], refused.io)).toBe(2);
      expect(refused.stderr()).toMatch(new RegExp(`^holdfast: web\\.listen 127\\.0\\.0\\.1:${port}: cannot listen there: `, 'm'));
    } finally {
      await new Promise<void>((resolve) => taken.close(() => resolve()));
    }
  });

  it('exits 2 with one line naming the store file and its holder when another bot process holds the store', async () => {
    const lock = lockStoreFile(join(temp.path(), 'data/turn_state/turns.sqlite3'), Date.UTC(2026, 0, 1));
    try {
      const refused = io(temp.path());
      expect(await runCli(['--jsonl'], refused.io)).toBe(2);
      expect(refused.stderr()).toMatch(new RegExp(`^holdfast: the store .*turns\\.sqlite3 is in use by another bot process \\(pid ${process.pid} on `, 'm'));
      expect(refused.stdout()).toBe('');
    } finally {
      lock.release();
    }
  });

  it('tells each channel once, after ready, that a request was interrupted by the last stop', async () => {
    const { store } = openTestStore(join(temp.path(), 'data'));
    await store.admit({ identity: { source: 'console', channelId: 'console', messageId: 'm-1' }, requesterId: 'console-user', messageDigest: 'd', start: startingWith() });
    await store.close();
    const first = io(temp.path());
    expect(await runCli(['--jsonl'], first.io)).toBe(0);
    const events = first
      .stdout()
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(events.map((e) => (e['type'] === 'ready' ? 'ready' : e['notice']))).toEqual(['ready', 'interrupted']);
    const second = io(temp.path());
    expect(await runCli(['--jsonl'], second.io)).toBe(0);
    expect(second.stdout()).toBe('{"type":"ready"}\n');
  });

  it('stops, with status 0 and without reading a line, a bot that SIGTERM reached while it was starting', async () => {
    const stopped = capturedIo(temp.path(), { env: {} });
    const stdin = new PassThrough();
    stdin.write('hello\n');
    const sigtermAtOnce = { once: (signal: 'SIGINT' | 'SIGTERM', listener: () => void) => (signal === 'SIGTERM' ? queueMicrotask(listener) : undefined) };

    expect(await runCli(['--jsonl'], { ...stopped.io, stdin, signals: sigtermAtOnce })).toBe(0);
    expect(stopped.stdout()).toBe('{"type":"ready"}\n');
  });
});
