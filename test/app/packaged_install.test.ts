import { execFile } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { chatText } from '../support/fake_llm/openai_chat.js';
import { FakeLLMServer } from '../support/fake_llm/server.js';
import { runProgram } from '../support/program.js';
import { useTempDir } from '../support/temp_dir.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** What a fresh clone holds that `npm pack` reads: no dist/, so the tarball's dist/ is prepack's build. */
const CLONED = ['package.json', 'tsconfig.json', 'scripts', 'src', 'config.schema.json', 'config.example.yml', 'README.md'];

/**
 * The folder a production install starts from, as docs/production.md shows it: empty but for a
 * package.json that lets better-sqlite3 build its native module.
 */
const INSTALL_MANIFEST = { private: true, allowScripts: { 'better-sqlite3': true } };

/** The environment of a child npm: this one without what an `npm test` around the suite exported for its own project. */
function npmEnvironment(): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.toLowerCase().startsWith('npm_') && name !== 'INIT_CWD'));
}

async function npm(args: readonly string[], cwd: string): Promise<string> {
  const { stdout } = await promisify(execFile)('npm', args, { cwd, env: npmEnvironment(), maxBuffer: 64 * 1024 * 1024 });
  return stdout;
}

// `npm pack` builds from scratch and the install may compile better-sqlite3 from source: minutes on
// a busy machine, so a limit that only catches hangs.
describe('the packed program, installed with production dependencies only', { timeout: 900_000 }, () => {
  const temp = useTempDir();
  let fake: FakeLLMServer;

  beforeEach(async () => {
    fake = await FakeLLMServer.start();
  });
  afterEach(async () => {
    await fake.close();
  });

  it('packs a fresh clone (prepack builds dist/), installs the tarball with --omit=dev into an empty folder, and runs holdfast --version, a console turn and doctor from there', async () => {
    const clone = join(temp.path(), 'clone');
    for (const name of CLONED) cpSync(join(ROOT, name), join(clone, name), { recursive: true });
    symlinkSync(join(ROOT, 'node_modules'), join(clone, 'node_modules'));
    const [packed] = JSON.parse(await npm(['pack', '--json', '--pack-destination', temp.path()], clone)) as [{ filename: string; files: { path: string }[] }];
    const contents = packed.files.map((file) => file.path);
    expect(contents).toEqual(expect.arrayContaining(['package.json', 'dist/main.js', 'config.schema.json', 'config.example.yml']));
    expect(contents.filter((path) => !path.startsWith('dist/') || path.endsWith('.map'))).toEqual(['README.md', 'config.example.yml', 'config.schema.json', 'package.json']);

    const app = join(temp.path(), 'app');
    mkdirSync(app);
    writeFileSync(join(app, 'package.json'), JSON.stringify(INSTALL_MANIFEST));
    await npm(['install', '--omit=dev', '--prefer-offline', '--no-audit', '--no-fund', join(temp.path(), packed.filename)], app);
    expect(existsSync(join(app, 'node_modules', 'typescript'))).toBe(false);
    expect(existsSync(join(app, 'node_modules', 'vitest'))).toBe(false);
    const holdfast = join(app, 'node_modules', '.bin', 'holdfast');

    const version = await runProgram(['--version'], { cwd: app, command: holdfast });
    const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
    expect(version).toMatchObject({ status: 0, stdout: `holdfast ${manifest.version}\n` });

    const bot = join(temp.path(), 'bot');
    mkdirSync(bot);
    const config = join(bot, 'config.yml');
    writeFileSync(config, `llm:\n  provider: openai\n  base_url: ${fake.baseUrl}\n  model: test-model\nlogging:\n  level: warn\n`);
    fake.enqueue(chatText('Milk is a drink.'));
    const turn = await runProgram(['--console', '--jsonl', '--config', config], { cwd: bot, command: holdfast, stdin: 'what is milk?\n' });
    expect(turn.status).toBe(0);
    const replies = turn.stdout
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .filter((event) => event['kind'] === 'reply');
    expect(replies).toMatchObject([{ type: 'message', kind: 'reply', text: 'Milk is a drink.' }]);

    const doctor = await runProgram(['doctor', '--config', config], { cwd: bot, command: holdfast });
    expect(doctor.stdout).toMatch(/^store: .*turns\.sqlite3: integrity ok$/m);
    expect(doctor).toMatchObject({ status: 0, stdout: expect.stringMatching(/\nhealthy\n$/) as unknown });
  });
});
