import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { capturedIo } from '../support/captured_io.js';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../src/app/run.js';
import { logDestination } from '../../src/app/log_destination.js';
import { useTempDir } from '../support/temp_dir.js';

/** The program's io with stderr a terminal, as when a person starts the bot in one. */
function terminalIo(cwd: string): ReturnType<typeof capturedIo> {
  return capturedIo(cwd, { isTTY: true });
}

/** A model against OpenAI's own API and no key: the start logs at INFO and warns. */
const CONFIG = 'llm:\n  model: gpt-4.1-mini\nlogging:\n  format: json\n';

describe('the text console started in a terminal', () => {
  const temp = useTempDir();

  it('logs to data/holdfast.log, private to the user, and shows one line on the terminal pointing at it for the warnings, not the warnings', async () => {
    temp.write('config.yml', CONFIG);
    const run = terminalIo(temp.path());
    expect(await runCli([], run.io)).toBe(0);
    const file = join(temp.path(), 'data/holdfast.log');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(join(temp.path(), 'data')).mode & 0o777).toBe(0o700);
    const logged = readFileSync(file, 'utf8')
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(logged.map((line) => line['msg'])).toContain('configuration loaded; starting the console adapter (no discord.token is configured)');
    expect(logged.filter((line) => line['level'] === 40).map((line) => line['msg'])).toEqual([expect.stringMatching(/^no API key for https:\/\/api\.openai\.com\/v1/)]);
    expect(run.stderr()).toBe(
      'holdfast: the log is in data/holdfast.log; a warning or error logged shows one line here pointing at it\n-- [log] a warning or error was logged: see data/holdfast.log\n',
    );
    expect(run.stderr()).not.toContain('configuration loaded');
    expect(run.stdout()).toMatch(/^Holdfast is ready\.[^\n]*\n$/);
  });

  it('points at the log once for any number of warnings until the person sends a line, then once more', () => {
    const run = terminalIo(temp.path());
    const destination = logDestination({ kind: 'console', mode: 'text', reason: 'requested' }, run.io);
    const warnings = destination.outputs.find((output) => output.minLevel === 'warn')?.stream;
    if (warnings === undefined || destination.screen === undefined) throw new Error('no terminal destination');
    warnings.write('{"level":40,"msg":"first"}\n');
    warnings.write('{"level":50,"msg":"second"}\n');
    destination.screen.typed('hello');
    warnings.write('{"level":40,"msg":"third"}\n');
    destination.close();
    expect(
      run
        .stderr()
        .split('\n')
        .filter((line) => line.startsWith('-- [log]')),
    ).toEqual(['-- [log] a warning or error was logged: see data/holdfast.log', '-- [log] a warning or error was logged: see data/holdfast.log']);
    expect(run.stderr()).not.toMatch(/first|second|third/);
  });

  it('keeps logging to stderr with --jsonl, a terminal or not', async () => {
    temp.write('config.yml', CONFIG);
    const jsonl = terminalIo(temp.path());
    expect(await runCli(['--jsonl'], jsonl.io)).toBe(0);
    expect(jsonl.stderr()).toContain('configuration loaded');
    expect(existsSync(join(temp.path(), 'data/holdfast.log'))).toBe(false);
  });
});
