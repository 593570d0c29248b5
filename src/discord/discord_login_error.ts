import { marked } from '../core/marked.js';

const LOGIN = marked<DiscordLoginError>('DiscordLoginError');

/** Logging in to Discord failed (a refused token or shard, an unreachable API): the program exits 2, like any other configuration problem. */
export class DiscordLoginError extends Error {
  override readonly name = 'DiscordLoginError';

  constructor(message: string) {
    super(message);
    LOGIN.mark(this);
  }
}

/** Whether `error` is a failed login to Discord, without loading discord.js to ask. */
export const isDiscordLoginError = LOGIN.is;
