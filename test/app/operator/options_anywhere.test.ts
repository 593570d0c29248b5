import { describe, expect, it } from 'vitest';
import { commandFirst } from '../../../src/app/operator/operator_args.js';
import { ManualClock } from '../../support/manual_clock.js';
import { parkedTurn, runCliIn, storeIn } from '../../support/operator_cli.js';
import { useTempDir } from '../../support/temp_dir.js';

describe('an operator command’s options before its name', () => {
  const temp = useTempDir();

  it('`holdfast --config FILE doctor` answers as `holdfast doctor --config FILE`, with the same status', async () => {
    const config = temp.write('config.yml', 'llm:\n  model: test-model\n');
    const clock = new ManualClock();
    await storeIn(temp.path(), clock).close();
    const after = await runCliIn(temp.path(), ['doctor', '--config', config], { clock });
    expect(after.status).toBe(0);
    expect(await runCliIn(temp.path(), ['--config', config, 'doctor'], { clock })).toEqual(after);
    expect(await runCliIn(temp.path(), [`--config=${config}`, 'doctor'], { clock })).toEqual(after);
  });

  it('`holdfast --config FILE turns list --json` lists as `holdfast turns list --json --config FILE`', async () => {
    const config = temp.write('config.yml', 'llm:\n  model: test-model\n');
    const clock = new ManualClock();
    const store = storeIn(temp.path(), clock);
    await parkedTurn(store.turns, 'm-parked', [{ id: 'w1' }]);
    await store.close();
    const after = await runCliIn(temp.path(), ['turns', 'list', '--json', '--config', config], { clock });
    expect(after.status).toBe(0);
    expect(after.stdout).toContain('AWAITING_RESOLUTION');
    expect(await runCliIn(temp.path(), ['--config', config, 'turns', 'list', '--json'], { clock })).toEqual(after);
  });

  it('moves only options, and leaves the bot’s own arguments and a config file named like a command alone', () => {
    expect(commandFirst(['--config', 'c.yml', 'turns', 'resolve', 't', 'c', '--applied'])).toEqual(['turns', 'resolve', '--config', 'c.yml', 't', 'c', '--applied']);
    expect(commandFirst(['--config', 'c.yml', 'turns', 'deny', 't', 'c', '--note', 'no'])).toEqual(['turns', 'deny', '--config', 'c.yml', 't', 'c', '--note', 'no']);
    expect(commandFirst(['--config', 'c.yml', 'backup', 'out.sqlite3'])).toEqual(['backup', '--config', 'c.yml', 'out.sqlite3']);
    expect(commandFirst(['--config', 'doctor'])).toEqual(['--config', 'doctor']);
    expect(commandFirst(['--console', '--config', 'c.yml'])).toEqual(['--console', '--config', 'c.yml']);
    expect(commandFirst(['hello', 'doctor'])).toEqual(['hello', 'doctor']);
    expect(commandFirst(['--config', 'c.yml', 'turns'])).toEqual(['turns', '--config', 'c.yml']);
    expect(commandFirst(['--config', 'c.yml', '--', 'doctor'])).toEqual(['--config', 'c.yml', '--', 'doctor']);
  });
});
