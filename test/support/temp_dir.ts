import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach } from 'vitest';

/** A fresh directory under the system temp dir, removed after the current test. */
export function useTempDir(): { readonly path: () => string; readonly write: (name: string, text: string) => string } {
  let dir: string | undefined;
  afterEach(() => {
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
    dir = undefined;
  });
  const path = (): string => (dir ??= mkdtempSync(join(tmpdir(), 'holdfast-test-')));
  const write = (name: string, text: string): string => {
    const file = join(path(), name);
    writeFileSync(file, text);
    return file;
  };
  return { path, write };
}
