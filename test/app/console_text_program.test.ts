import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { chatText } from '../support/fake_llm/openai_chat.js';
import { FakeLLMServer } from '../support/fake_llm/server.js';
import { runProgram } from '../support/program.js';
import { terminalControlsIn } from '../support/terminal_controls.js';
import { useTempDir } from '../support/temp_dir.js';

// A real process: a generous limit that only catches hangs.
describe('the bot in the terminal, as a child process writing text', { timeout: 60_000 }, () => {
  const temp = useTempDir();
  let fake: FakeLLMServer;

  beforeEach(async () => {
    fake = await FakeLLMServer.start();
  });
  afterEach(async () => {
    await fake.close();
  });

  const config = (): string => temp.write('config.yml', `llm:\n  provider: openai\n  base_url: ${fake.baseUrl}\n  model: test-model\nlogging:\n  level: warn\n`);

  it('prints a reply full of terminal control sequences without any of them, even split between deltas', async () => {
    fake.enqueue(chatText(['Hi\u001b]0;owned\u0007 there\u001b[2', 'J. \u001b', '[31mRed\u001b[0m\r\n\u009b1;1HEnd.\u001b']));
    const run = await runProgram(['--console', '--config', config()], { cwd: temp.path(), stdin: 'hello\n' });
    expect(run.status).toBe(0);
    expect(run.stdout).toContain('bot> Hi there. Red\nEnd.\n');
    expect(terminalControlsIn(run.stdout)).toEqual([]);
    expect(fake.requests).toHaveLength(1);
  });

  it('marks notices apart from replies, and writes no prompt and no control sequences to a pipe', async () => {
    fake.enqueue(chatText(['Hi.']));
    const run = await runProgram(['--console', '--config', config()], { cwd: temp.path(), stdin: '/status\nhello\n' });
    expect(run.status).toBe(0);
    const lines = run.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^Holdfast is ready\./);
    expect(run.stdout).toMatch(/^-- \[status\] \S/m);
    expect(run.stdout).toContain('\nbot> Hi.\n');
    // A notice of several lines is indented under its mark.
    expect(lines.slice(1).filter((line) => !/^(-- \[\w+\] | {3}\S|bot> )/.test(line))).toEqual([]);
    expect(run.stdout).not.toContain('you> ');
    expect(terminalControlsIn(run.stdout)).toEqual([]);
  });
});
