import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/run.js';
import { useTempDir } from '../support/temp_dir.js';

function io(cwd: string, env: Record<string, string> = {}) {
  const out: string[] = [];
  const err: string[] = [];
  const stderr = Object.assign(
    new Writable({
      write(chunk: Buffer, _encoding, done) {
        err.push(chunk.toString('utf8'));
        done();
      },
    }),
    { isTTY: false },
  );
  return { io: { stdout: { write: (text: string) => out.push(text) }, stderr, env, cwd }, stdout: () => out.join(''), stderr: () => err.join('') };
}

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

  it('logs the loaded configuration as JSON and says it would run the console without a token', async () => {
    const run = io(temp.path());
    expect(await runCli([], run.io)).toBe(0);
    const [logLine, notice] = run.stderr().trimEnd().split('\n');
    expect(JSON.parse(logLine ?? '')).toMatchObject({ msg: 'configuration loaded', config: 'defaults', adapter: { kind: 'console', reason: 'no_discord_token' } });
    expect(notice).toContain('would start the console adapter (no discord.token is configured)');
    expect(run.stdout()).toBe('');
  });

  it('chooses Discord when a token is configured, unless the console is asked for', async () => {
    temp.write('config.yml', 'discord:\n  token: ${DISCORD_TOKEN}\nlogging:\n  level: warn\n');
    const discord = io(temp.path(), { DISCORD_TOKEN: 'abc' });
    expect(await runCli([], discord.io)).toBe(0);
    expect(discord.stderr()).toContain('would start the Discord adapter (discord.token is configured)');
    expect(discord.stderr()).not.toContain('abc');
    const jsonl = io(temp.path(), { DISCORD_TOKEN: 'abc' });
    expect(await runCli(['--jsonl'], jsonl.io)).toBe(0);
    expect(jsonl.stderr()).toContain('would start the console adapter in JSON-lines mode (asked for on the command line)');
  });
});
