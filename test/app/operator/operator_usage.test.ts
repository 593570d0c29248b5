import { describe, expect, it } from 'vitest';
import { runCliIn } from '../../support/operator_cli.js';
import { useTempDir } from '../../support/temp_dir.js';

describe('the operator commands’ usage', () => {
  const temp = useTempDir();

  it('the program’s help names the operator commands', async () => {
    const run = await runCliIn(temp.path(), ['--help']);
    expect(run.status).toBe(0);
    expect(run.stdout).toContain('holdfast turns list|show|resolve|approve|deny');
    expect(run.stdout).toContain('holdfast doctor');
    expect(run.stdout).toContain('holdfast backup PATH');
    expect(run.stdout).toContain('holdfast web');
  });

  it.each([
    [['turns', '--help'], /^Usage: holdfast turns list .*\n {7}holdfast turns show TURN/s],
    [['turns', 'list', '--help'], /^Usage: holdfast turns list \[--status S\]\.\.\. \[--channel C\] \[--json\] \[--config PATH\]\n/],
    [['turns', 'show', '-h'], /^Usage: holdfast turns show TURN \[--json\] \[--config PATH\]\n/],
    [['turns', 'resolve', '--help'], /^Usage: holdfast turns resolve TURN CALL --applied \[--result TEXT\]/],
    [['turns', 'approve', '--help'], /^Usage: holdfast turns approve TURN CALL \[--note TEXT\] \[--json\] \[--config PATH\]\n {7}holdfast turns deny TURN CALL/],
    [['turns', 'deny', '-h'], /^Usage: holdfast turns approve TURN CALL .*\n {7}holdfast turns deny TURN CALL \[--note TEXT\] \[--json\] \[--config PATH\]\n/],
    [['usage', '--help'], /^Usage: holdfast usage \[--by user\|channel\|server\|model\|day\] \[--since 7d\|today\|month\] \[--json\] \[--config PATH\]\n/],
    [['doctor', '--help'], /^Usage: holdfast doctor \[--json\] \[--config PATH\]\n/],
    [['backup', '--help'], /^Usage: holdfast backup PATH \[--config PATH\]\n/],
    [['web', '--help'], /^Usage: holdfast web \[--config PATH\]\n/],
  ])('%j prints its help on stdout and exits 0, touching no store', async (argv, usage) => {
    const run = await runCliIn(temp.path(), argv);
    expect(run).toMatchObject({ status: 0, stderr: '' });
    expect(run.stdout).toMatch(usage);
  });

  it.each([
    [['turns'], 'turns needs a subcommand: list, show, resolve, approve or deny', 'holdfast turns'],
    [['turns', 'delete'], "unknown turns subcommand 'delete' (expected list, show, resolve, approve or deny)", 'holdfast turns'],
    [['turns', 'list', '--all'], "unknown option '--all'", 'holdfast turns list'],
    [['turns', 'list', 'extra'], "unexpected argument 'extra'", 'holdfast turns list'],
    [['turns', 'list', '--json=yes'], '--json takes no value', 'holdfast turns list'],
    [['turns', 'list', '--config'], '--config needs a value', 'holdfast turns list'],
    [['turns', 'list', '--config', '--json'], '--config needs a value', 'holdfast turns list'],
    [['turns', 'list', '--channel', 'a', '--channel=b'], '--channel is given more than once', 'holdfast turns list'],
    [['turns', 'show', 'a', 'b'], "unexpected argument 'b'", 'holdfast turns show'],
    [['usage', '--since', 'week'], "--since takes Nd (the last N days, today included; N from 1 to 3660), today or month, not 'week'", 'holdfast usage'],
    [['doctor', 'now'], "unexpected argument 'now'", 'holdfast doctor'],
    [['backup', 'a', 'b'], "unexpected argument 'b'", 'holdfast backup'],
    [['migrate', 'now', '--to', 'postgres'], "unexpected argument 'now'", 'holdfast migrate'],
    [['web', 'now'], "unexpected argument 'now'", 'holdfast web'],
  ])('%j exits 2 naming the problem and the help to read', async (argv, error, command) => {
    expect(await runCliIn(temp.path(), argv)).toEqual({ status: 2, stdout: '', stderr: `holdfast: ${error}\nTry '${command} --help' for the options.\n` });
  });

  it('takes --config=PATH and an argument after --', async () => {
    const config = temp.write('other.yml', 'turn_state:\n  enabled: false\n');
    const run = await runCliIn(temp.path(), ['turns', 'show', `--config=${config}`, '--', '-abc']);
    expect(run).toEqual({ status: 2, stdout: '', stderr: 'holdfast: turn_state.enabled is false in the configuration: there is no store\n' });
  });

  it('exits 2 for a configuration file that cannot be read', async () => {
    const run = await runCliIn(temp.path(), ['turns', 'list', '--config', 'nowhere.yml']);
    expect(run.status).toBe(2);
    expect(run.stderr).toMatch(/^holdfast: .*nowhere\.yml.*cannot read the configuration file \(named by --config\)/);
  });
});
