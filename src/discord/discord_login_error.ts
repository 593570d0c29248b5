import { marked } from '../core/marked.js';

const LOGIN = marked<DiscordLoginError>('DiscordLoginError');

/**
 * Why logging in to Discord failed: Discord refused the token (`token_refused`), a shard
 * (`shard_refused`, DESIGN §7.7) or what the bot asked for (`refused`: intents it may not use, a
 * wrong `discord.api_url`), which a person must fix; or Discord could not be reached
 * (`unreachable`: the network, a 5xx, a timeout), which waiting may cure.
 */
export type LoginFailure = 'token_refused' | 'shard_refused' | 'refused' | 'unreachable';

/** Logging in to Discord failed, and why ({@link LoginFailure}). */
export class DiscordLoginError extends Error {
  override readonly name = 'DiscordLoginError';

  constructor(
    readonly failure: LoginFailure,
    message: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
    LOGIN.mark(this);
  }
}

/** Whether `error` is a failed login to Discord, without loading discord.js to ask. */
export const isDiscordLoginError = LOGIN.is;
