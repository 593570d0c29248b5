import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import type { LoadedConfig } from '../config/load.js';
import type { Config } from './config_schema.js';

/**
 * Why the program refuses to start on the SQLite store at `turn_state.db_path`: the file is not
 * where the path now points, relative to the configuration file's folder, but is where earlier
 * versions looked, relative to the current folder. Starting would create an empty store and leave
 * every saved turn behind, so the program exits with status 2 naming both paths instead. `undefined`
 * when nothing was left behind: the store is where the path points, or nowhere, or the path is
 * absolute, or the configuration file sits in the current folder, or the SQLite file is not what
 * the program opens (`use: 'store'` with the store off or on PostgreSQL; `migrate` reads the file
 * whatever the backend).
 */
export function storeLeftBehind({ config, source, baseDir }: Pick<LoadedConfig<Config>, 'config' | 'source' | 'baseDir'>, cwd: string, use: 'store' | 'migrate'): string | undefined {
  const { db_path: dbPath, enabled, backend } = config.turn_state;
  if (use === 'store' && (!enabled || backend !== 'sqlite')) return undefined;
  const resolved = resolve(baseDir, dbPath);
  const old = resolve(cwd, dbPath);
  if (resolved === old || existsSync(resolved) || !existsSync(old)) return undefined;
  const file = source.kind === 'file' ? source.path : 'the configuration';
  return (
    `the store is not at ${resolved} (turn_state.db_path, relative to the folder of ${file}) but at ${old} ` +
    `(relative to the current folder, where earlier versions looked): move it to ${resolved}, or set turn_state.db_path to ${old}`
  );
}
