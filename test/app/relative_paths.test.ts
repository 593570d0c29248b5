import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../support/manual_clock.js';
import { runCliIn, storeIn, storePathIn } from '../support/operator_cli.js';
import { runProgram } from '../support/program.js';
import { useTempDir } from '../support/temp_dir.js';

/** A service manager or a container starts the program in a folder of its own, with the configuration elsewhere. */
describe('relative paths of a configuration file', () => {
  const temp = useTempDir();

  /** A configuration file in `etc/`, the program started in `elsewhere/`. */
  function layout(): { readonly config: string; readonly configDir: string; readonly elsewhere: string } {
    const configDir = join(temp.path(), 'etc');
    const elsewhere = join(temp.path(), 'elsewhere');
    mkdirSync(configDir);
    mkdirSync(elsewhere);
    return { config: temp.write('etc/config.yml', 'llm:\n  model: test-model\nlogging:\n  level: warn\n'), configDir, elsewhere };
  }

  it('puts the bot’s store beside the configuration file, and the operator commands find it there', async () => {
    const { config, configDir, elsewhere } = layout();

    const bot = await runProgram(['--jsonl', '--config', config], { cwd: elsewhere });
    expect(bot).toMatchObject({ status: 0, stdout: '{"type":"ready"}\n' });
    expect(existsSync(storePathIn(configDir))).toBe(true);
    expect(existsSync(join(elsewhere, 'data'))).toBe(false);

    const doctor = await runCliIn(elsewhere, ['--config', config, 'doctor']);
    expect(doctor.status).toBe(0);
    expect(doctor.stdout).toContain(`store: ${storePathIn(configDir)}: integrity ok`);
    const list = await runCliIn(elsewhere, ['turns', 'list', '--config', config]);
    expect(list).toMatchObject({ status: 0, stderr: '' });
  });

  it('refuses, with status 2 naming both paths, a store left in the current folder where earlier versions looked', async () => {
    const { config, configDir, elsewhere } = layout();
    await storeIn(elsewhere, new ManualClock()).close();
    const both = `the store is not at ${storePathIn(configDir)} (turn_state.db_path, relative to the folder of ${config}) but at ${storePathIn(elsewhere)}`;

    const bot = await runProgram(['--jsonl', '--config', config], { cwd: elsewhere });
    expect(bot.status).toBe(2);
    expect(bot.stderr).toContain(`holdfast: ${both}`);
    expect(bot.stdout).toBe('');
    for (const argv of [['doctor'], ['turns', 'list'], ['backup', 'copy.sqlite3'], ['migrate', '--to', 'postgres']]) {
      const run = await runCliIn(elsewhere, [...argv, '--config', config]);
      expect({ argv, status: run.status, stderr: run.stderr }).toEqual({
        argv,
        status: 2,
        stderr: `holdfast: ${both} (relative to the current folder, where earlier versions looked): move it to ${storePathIn(configDir)}, or set turn_state.db_path to ${storePathIn(elsewhere)}\n`,
      });
    }
    expect(existsSync(storePathIn(configDir))).toBe(false);
  });

  it('keeps the current folder for a configuration file found in it', async () => {
    const here = temp.path();
    temp.write('config.yml', 'llm:\n  model: test-model\n');
    await storeIn(here, new ManualClock()).close();

    const doctor = await runCliIn(here, ['doctor']);
    expect(doctor.status).toBe(0);
    expect(doctor.stdout).toContain(`store: ${storePathIn(here)}: integrity ok`);
  });
});
