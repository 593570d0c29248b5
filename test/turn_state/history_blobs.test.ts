import { afterEach, describe, expect, it } from 'vitest';
import { openTestStoreFile, type TestStoreFile } from '../support/store_file.js';
import { useTempDir } from '../support/temp_dir.js';

const CHANNEL = 'discord:100';

describe('attachments kept in history, in the store file’s blob directory', () => {
  const temp = useTempDir();
  let file: TestStoreFile | undefined;
  afterEach(async () => {
    await file?.close();
  });

  it('outlive the retention sweep while their entry is in history, and go with the next sweep once it is not', async () => {
    file = openTestStoreFile(temp.path());
    const notes = { kind: 'text', name: 'notes.txt', text: 'buy milk' } as const;
    await file.history.append(CHANNEL, { role: 'user', text: 'my list', messageId: 'm1', attachments: [notes] });

    expect((await file.turns.sweepRetention()).deletedBlobs).toBe(0);
    await file.close();
    file = openTestStoreFile(temp.path());
    expect((await file.history.read(CHANNEL)).entries[0]?.attachments).toEqual([notes]);

    await file.history.remove(CHANNEL, ['m1']);
    expect((await file.turns.sweepRetention()).deletedBlobs).toBe(1);
  });
});
