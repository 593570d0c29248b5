/**
 * How the store creates what it keeps on disk (DESIGN §7.1): a directory or file it creates is
 * private to the bot's user (0700, 0600), and one that already existed keeps the mode its owner
 * gave it — the store may live in a shared directory such as /tmp or the working directory.
 */
import { chmodSync, closeSync, fchmodSync, mkdirSync, openSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

/** The mode of every directory the store creates. */
const PRIVATE_DIR_MODE = 0o700;
/** The mode of every file the store creates. */
export const PRIVATE_FILE_MODE = 0o600;

/**
 * Makes `dir` and any missing parents, each it creates mode 0700 whatever the umask; a directory
 * that already existed is left as it is.
 */
export function makePrivateDirectory(dir: string): void {
  // Resolved, so that the walk up from `dir` meets the first directory created and no other.
  const target = resolve(dir);
  const first = mkdirSync(target, { recursive: true, mode: PRIVATE_DIR_MODE });
  if (first === undefined) return;
  for (let created = target; created !== dirname(created); created = dirname(created)) {
    chmodSync(created, PRIVATE_DIR_MODE);
    if (created === first) return;
  }
}

/** Creates `path` as an empty file of mode 0600, whatever the umask, unless it exists; an existing file is left as it is. */
export function createPrivateFile(path: string): void {
  let fd: number;
  try {
    fd = openSync(path, 'wx', PRIVATE_FILE_MODE);
  } catch (error) {
    if (error instanceof Error && 'code' in error && error.code === 'EEXIST') return;
    throw error;
  }
  try {
    fchmodSync(fd, PRIVATE_FILE_MODE);
  } finally {
    closeSync(fd);
  }
}
