import { describe, expect, it } from 'vitest';
import { discordConfigYaml } from '../support/discord_bot.js';
import { FakeDiscord } from '../support/fake_discord/server.js';
import { runProgram } from '../support/program.js';
import { useTempDir } from '../support/temp_dir.js';

// Real processes and long matrices: generous limits that only catch hangs.
describe('the holdfast program', { timeout: 30_000 }, () => {
  const temp = useTempDir();

  it('exits 2 on bad configuration, one line per problem naming its key path, without a stack trace', async () => {
    const bad = temp.write('bad.yml', 'discord:\n  token: ${DISCORD_TOKEN}\n  tokn: x\nlogging:\n  level: 7\n');
    const run = await runProgram(['--config', 'bad.yml'], { cwd: temp.path() });
    expect(run.status).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr.trimEnd().split('\n')).toEqual([
      `holdfast: ${bad}:2:10: discord.token: environment variable DISCORD_TOKEN is not set`,
      `holdfast: ${bad}:3:3: discord.tokn: unknown key (expected one of: token, api_url, channels, guild_ids, ` +
        `shards, edit_interval_ms, requests_per_second, delivery_backoff_seconds, delivery_deadline_seconds, ` +
        `max_attachment_mb, max_text_attachment_kb, status_message)`,
      `holdfast: ${bad}:5:10: logging.level: expected one of "fatal", "error", "warn", "info", "debug", "trace", "silent"; got 7`,
    ]);
  });

  it('exits 2 on a removed key, with a line that says where its data went', async () => {
    const old = temp.write('old.yml', 'chat:\n  history_db_path: data/history/history.sqlite3\n');
    const run = await runProgram(['--config', 'old.yml'], { cwd: temp.path() });
    expect(run.status).toBe(2);
    expect(run.stderr.trimEnd().split('\n')).toEqual([
      `holdfast: ${old}:2:3: chat.history_db_path: removed; conversation history now lives in the one store file ` +
        `turn_state.db_path (an old file at data/history/history.sqlite3 is imported at the next start; move a file ` +
        `kept elsewhere there first) — delete this key`,
    ]);
  });

  it('exits 2 on an unknown placeholder in a system prompt, naming its key and the placeholder', async () => {
    const bad = temp.write('prompt.yml', 'chat:\n  system_prompt: "Today is {date}; you talk to {username}."\n');
    const run = await runProgram(['--config', 'prompt.yml'], { cwd: temp.path() });
    expect(run.status).toBe(2);
    expect(run.stderr.trimEnd().split('\n')).toEqual([
      `holdfast: ${bad}:2:18: chat.system_prompt: unknown placeholder {username}: a prompt may hold {date}, {time}, {server}, {channel}, {user} (write {{username} for the text {username})`,
    ]);
  });

  it('exits 2 when the configuration file cannot be read or parsed', async () => {
    const missing = await runProgram(['--config', 'missing.yml'], { cwd: temp.path() });
    expect(missing.status).toBe(2);
    expect(missing.stderr).toMatch(/^holdfast: .*missing\.yml: cannot read the configuration file \(named by --config\): ENOENT/);
    temp.write('broken.yml', 'logging: [\n');
    const broken = await runProgram([], { cwd: temp.path(), env: { HOLDFAST_CONFIG: 'broken.yml' } });
    expect(broken.status).toBe(2);
    expect(broken.stderr).toMatch(/broken\.yml:2:1: YAML syntax error: /);
    expect(broken.stderr).not.toMatch(/\n\s+at /);
  });

  it('starts with defaults when there is no configuration, and exits 0 at the end of its input', async () => {
    const run = await runProgram([], { cwd: temp.path() });
    expect(run.status).toBe(0);
    expect(run.stderr).toContain('configuration loaded; starting the console adapter (no discord.token is configured)');
    expect(run.stdout).toMatch(/^Holdfast is ready\./);
  });

  it('prints its version', async () => {
    const run = await runProgram(['--version'], { cwd: temp.path() });
    expect(run).toMatchObject({ status: 0, stdout: expect.stringMatching(/^holdfast \d+\.\d+\.\d+\n$/) as unknown });
  });

  it('kills a run that does not exit by its deadline and fails naming the command and quoting its output', async () => {
    const discord = await FakeDiscord.start();
    try {
      temp.write('config.yml', discordConfigYaml(discord, 'http://127.0.0.1:9'));
      // On Discord the program runs until it is stopped: the run cannot end by itself.
      const failed: unknown = await runProgram(['--config', 'config.yml'], { cwd: temp.path(), deadlineMs: 10_000 }).catch((error: unknown) => error);
      expect(failed).toBeInstanceOf(Error);
      const message = (failed as Error).message;
      expect(message).toMatch(/^waited 10000 ms for `holdfast --config config\.yml` to exit, in vain\nstdout so far \(0 chars\):\n\(nothing\)\nstderr so far \(\d+ chars\):\n/);
      expect(message).toContain('configuration loaded; starting the Discord adapter');
    } finally {
      await discord.close();
    }
  });
});
