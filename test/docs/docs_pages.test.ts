import { spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { IdFactory } from '../../src/core/ids.js';
import { ManualClock } from '../support/manual_clock.js';
import { parkedTurn, storePathIn } from '../support/operator_cli.js';
import { useTempDir } from '../support/temp_dir.js';
import { openStoreFileAt } from '../support/turn_store.js';

const root = realpathSync(new URL('../../', import.meta.url));
const read = (path: string): string => readFileSync(join(root, path), 'utf8');

/** The pages a newcomer reads: the front page and every page under docs/. */
const PAGES = ['README.md', ...readdirSync(join(root, 'docs')).map((name) => `docs/${name}`)].filter((path) => path.endsWith('.md'));

/** The commands of a page's ```sh blocks, in the order written. */
function shellCommands(markdown: string): string[] {
  return [...markdown.matchAll(/^```sh\n([\s\S]*?)^```$/gm)].flatMap((block) => (block[1] ?? '').split('\n').filter((line) => line.trim() !== ''));
}

/** The commands `.ci/run` runs on a clean clone, which no test can run inside the checkout it tests. */
const RUN_BY_CI = ['npm ci'];

/** What a shell run printed and how it ended. */
interface ShellRun {
  readonly status: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * A checkout as a newcomer has it after `npm ci` (the package, its dependencies, its sources and
 * the program built from them, the example configuration), made of links into this one, so that a
 * page's commands run there as written, `npx holdfast` included.
 */
function checkoutIn(dir: string): void {
  copyFileSync(join(root, 'package.json'), join(dir, 'package.json'));
  copyFileSync(join(root, 'config.example.yml'), join(dir, 'config.example.yml'));
  for (const name of ['node_modules', 'dist', 'src', 'scripts', 'tsconfig.json']) symlinkSync(join(root, name), join(dir, name));
  mkdirSync(join(dir, 'home'));
}

/** Runs `commands` as one `sh -e` script in `dir`, with nothing on its input and none of this process's environment but PATH. */
function runShell(commands: readonly string[], dir: string): Promise<ShellRun> {
  const child = spawn('sh', ['-e', '-c', commands.join('\n')], {
    cwd: dir,
    env: { PATH: `${dirname(process.execPath)}:/usr/bin:/bin`, HOME: join(dir, 'home'), npm_config_update_notifier: 'false' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (status) => resolve({ status, stdout, stderr }));
  });
}

/** Turn ids as the store makes them, the first one the id docs/operations.md shows. */
class OperationsPageIds implements IdFactory {
  #next = 0;

  newId(): string {
    this.#next += 1;
    return this.#next === 1 ? '8c1493bd-04c8-4919-a1d5-ebd9dacfea0a' : `${this.#next.toString(16).padStart(8, '0')}-bbbb-4000-8000-000000000000`;
  }
}

describe('the documentation', () => {
  const temp = useTempDir();

  it('runs the quick start of README.md as written, to a bot that answers and a healthy doctor', { timeout: 120_000 }, async () => {
    const commands = shellCommands(read('README.md'));
    const ciRun = read('.ci/run');
    for (const command of RUN_BY_CI) expect(ciRun.split('\n'), `.ci/run runs ${command}`).toContain(command);
    const dir = temp.path();
    checkoutIn(dir);

    const run = await runShell(
      commands.filter((command) => !RUN_BY_CI.includes(command)),
      dir,
    );

    expect(commands).toEqual(['npm ci', 'cp config.example.yml config.yml', 'export OPENAI_API_KEY=sk-...', 'npx holdfast', 'npx holdfast doctor']);
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^Holdfast is ready\./);
    expect(run.stdout).toContain(`store: ${storePathIn(dir)}: integrity ok`);
    expect(run.stdout).toMatch(/\nhealthy\n$/);
  });

  it('runs the first look of docs/operations.md as written, settling an uncertain call and ending healthy', { timeout: 120_000 }, async () => {
    const commands = shellCommands(read('docs/operations.md'));
    const dir = temp.path();
    checkoutIn(dir);
    copyFileSync(join(dir, 'config.example.yml'), join(dir, 'config.yml'));
    const store = openStoreFileAt(storePathIn(dir), { clock: new ManualClock({ wallStart: Date.UTC(2026, 11, 3, 9) }), ids: new OperationsPageIds() });
    await parkedTurn(store.turns, 'm-1', [{ id: 'call_1', tool: 'open_ticket', input: { title: 'Printer on fire' } }]);
    await store.close();
    writeFileSync(join(dir, 'data', 'holdfast.log'), `${JSON.stringify({ level: 30, time: '2026-12-03T09:00:00.000Z', msg: 'connected to Discord' })}\n`);

    const run = await runShell(commands, dir);

    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toContain('8c1493bd');
    expect(run.stdout).toContain('open_ticket');
    expect(run.stdout).toMatch(/\nhealthy\n/);
    expect(run.stdout).toContain('connected to Discord');
    expect(existsSync(join(dir, 'backups', '2026-12-03', 'turns.sqlite3'))).toBe(true);
  });

  it('links only to files and headings that exist', () => {
    const broken = PAGES.flatMap((page) =>
      [...read(page).matchAll(/\]\(([^)\s]+)\)/g)]
        .map((match) => match[1] ?? '')
        .filter((target) => !/^[a-z]+:/.test(target))
        .filter((target) => !resolves(page, target))
        .map((target) => `${page}: ${target}`),
    );
    expect(broken).toEqual([]);
  });
});

/** Whether a relative link of `page` names a file that exists and, after `#`, one of its headings. */
function resolves(page: string, target: string): boolean {
  const [path = '', anchor] = target.split('#');
  const file = path === '' ? join(root, page) : join(root, dirname(page), path);
  if (relative(root, file).startsWith('..') || !existsSync(file)) return false;
  if (anchor === undefined) return true;
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => /^#{1,6} /.test(line))
    .some((line) => slug(line.replace(/^#+ /, '')) === anchor);
}

/** A heading's anchor as GitHub makes it: lower case, punctuation dropped, spaces made hyphens. */
function slug(heading: string): string {
  return heading
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}
