import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { causeOf, isBackupWithOwnToolsError } from '../../turn_state/errors.js';
import { EXIT, type ExitStatus } from '../exit_status.js';
import type { OperatorContext } from './operator_context.js';

/** What `holdfast backup` was asked for: the new file, relative to the working directory. */
export interface BackupRequest {
  readonly path: string;
  readonly cwd: string;
  /** The store file being copied, to name it. */
  readonly storePath: string;
}

/**
 * `holdfast backup PATH`: a consistent copy of the store, taken with SQLite's online backup while
 * the bot may be writing, and the blobs its rows refer to in `blobs/` beside the copy. An
 * existing PATH is never overwritten (status 2); a copy that could not be written is status 1; a
 * store that is backed up with its database server's own tools is status 2, naming the tool.
 */
export async function backup(context: OperatorContext, request: BackupRequest): Promise<ExitStatus> {
  const path = resolve(request.cwd, request.path);
  if (existsSync(path)) {
    context.err(`holdfast: ${path} already exists; a backup never overwrites a file: name a new one\n`);
    return EXIT.usage;
  }
  let copy;
  try {
    copy = await context.operator.backup(path);
  } catch (error) {
    if (isBackupWithOwnToolsError(error)) {
      context.err(`holdfast: ${error.message}\n`);
      return EXIT.usage;
    }
    context.err(`holdfast: the backup to ${path} could not be written: ${causeOf(error)}\n`);
    return EXIT.failure;
  }
  context.out(`Backed up ${request.storePath} to ${path}; the blobs it refers to are in ${copy.blobs}. Keep the two together.\n`);
  return EXIT.ok;
}
