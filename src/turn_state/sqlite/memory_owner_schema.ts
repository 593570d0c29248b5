/**
 * Schema version 7 (DESIGN §7.1): a user's notes are owned by `source:userId`, as a channel's are
 * by `source:channelId`, so that the same id on two transports does not share notes. A note kept
 * before named its user alone; the console's one user is `console-user` and every other id came
 * from Discord, so the console's notes stay the console's and all others become the Discord
 * user's.
 */

/** SQL for the owner a `user` note kept under the bare user id in `column` has from version 7 on. */
export const userOwnerWithSource = (column: string): string => `(CASE ${column} WHEN 'console-user' THEN 'console:' ELSE 'discord:' END || ${column})`;

export const memoryNotesOwnedPerSource = `
  UPDATE memory_notes SET owner_id = ${userOwnerWithSource('owner_id')} WHERE scope = 'user';
`;
