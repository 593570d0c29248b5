/**
 * Schema version 8 (DESIGN §5.4): a pending reply keeps the model that wrote it and whether that
 * was a fallback, so that a reply posted after a restart names its model as it would have. A
 * reply stored before has no model.
 */
export const repliesKeepTheirAuthor = `
  ALTER TABLE replies ADD COLUMN written_by_model TEXT;
  ALTER TABLE replies ADD COLUMN written_by_fallback INTEGER NOT NULL DEFAULT 0 CHECK (written_by_fallback IN (0, 1));
`;
