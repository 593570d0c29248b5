/**
 * Schema version 6 (DESIGN §1): a history entry keeps the attachments of the user's message as
 * references to blobs, which `history_blob_refs` keeps from the blob collection, and is found by
 * its message id, so that an edit or a deletion of the message changes it.
 */
export const historyAttachmentsAndEdits = `
  ALTER TABLE history_entries ADD COLUMN attachments TEXT;
  CREATE INDEX history_entries_by_message ON history_entries (channel, message_id) WHERE message_id IS NOT NULL;
  CREATE TABLE history_blob_refs (
    entry_id INTEGER NOT NULL REFERENCES history_entries (id) ON DELETE CASCADE,
    digest TEXT NOT NULL,
    PRIMARY KEY (entry_id, digest)
  ) WITHOUT ROWID;
  CREATE INDEX history_blob_refs_by_digest ON history_blob_refs (digest);
`;
