import type { MessageSource } from '../conversation/transport.js';

/** The console's messages can be neither edited nor deleted: the original is always as admitted. */
export const consoleMessageSource: MessageSource = {
  fetchOriginal: (ref) => Promise.resolve({ authorId: ref.authorId, digest: ref.digest }),
};
