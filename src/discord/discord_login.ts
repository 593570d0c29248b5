import { DiscordjsErrorCodes, Events, GatewayCloseCodes, type Client } from 'discord.js';
import { isNetworkFailure } from '../core/start_retries.js';
import { DiscordLoginError } from './discord_login_error.js';

/** The close code of a shard Discord refused: no shard of the count, or one already connected. */
const INVALID_SHARD: number = GatewayCloseCodes.InvalidShard;
/** The close code of a token Discord refused. */
const AUTHENTICATION_FAILED: number = GatewayCloseCodes.AuthenticationFailed;

/** A gateway connection Discord closed for good, and the shard it was. */
interface Closed {
  readonly code: number;
  readonly shardId: number;
}

/**
 * Logs `client` in with `token` and resolves once it is ready. `signal` abandons the attempt:
 * the client is destroyed. A client whose login failed is destroyed too, and cannot log in again:
 * each attempt needs a client of its own.
 * @throws {DiscordLoginError} saying why, when discord.js said why in a way this knows; anything
 * else as it is.
 */
export async function logIn(client: Client, token: string, where: string, signal: AbortSignal): Promise<Client<true>> {
  const ready = new Promise<Client<true>>((resolve) => client.once(Events.ClientReady, resolve));
  const closed: Closed[] = [];
  // discord.js says why a gateway connection ended for good only in this event, before the login fails.
  client.on(Events.ShardDisconnect, (event, shardId) => closed.push({ code: event.code, shardId }));
  const abandon = (): void => void client.destroy();
  signal.addEventListener('abort', abandon, { once: true });
  try {
    await client.login(token);
    return await ready;
  } catch (error) {
    await client.destroy();
    throw loginError(error, closed, client.options.shardCount ?? 1, where);
  } finally {
    signal.removeEventListener('abort', abandon);
  }
}

/**
 * Why a login failed, decided on fields: the close code of a gateway connection Discord ended (a
 * token, a shard, intents), discord.js's `TokenInvalid` (Discord answered 401), the HTTP `status`
 * of Discord's answer, a network failure's `code`, a request's timeout (`AbortError`).
 */
function loginError(error: unknown, closed: readonly Closed[], shardCount: number, where: string): unknown {
  const failed = (failure: DiscordLoginError['failure'], reason: string): DiscordLoginError =>
    new DiscordLoginError(failure, `could not log in to Discord with discord.token${where}: ${reason}`, { cause: error });
  const refusedShard = closed.find((entry) => entry.code === INVALID_SHARD);
  if (refusedShard !== undefined)
    return failed(
      'shard_refused',
      `Discord refused shard ${refusedShard.shardId} of ${shardCount} (close code ${INVALID_SHARD}, invalid shard): check discord.shards, and that no other process runs that shard`,
    );
  if (closed.some((entry) => entry.code === AUTHENTICATION_FAILED) || fieldOf(error, 'code') === DiscordjsErrorCodes.TokenInvalid)
    return failed('token_refused', `Discord refused the token (authentication failed): check discord.token`);
  const [other] = closed;
  if (other !== undefined) return failed('refused', `Discord closed the gateway connection with code ${other.code} (${GatewayCloseCodes[other.code] ?? 'unknown'})`);
  const status = fieldOf(error, 'status');
  const message = error instanceof Error ? error.message : String(error);
  // Said after what could not be reached (UnreachableAtStartError), so only the cause.
  if (isNetworkFailure(error) || (typeof status === 'number' && status >= 500) || fieldOf(error, 'name') === 'AbortError') return new DiscordLoginError('unreachable', message, { cause: error });
  if (typeof status === 'number' && status >= 400) return failed('refused', `Discord answered ${status} (${message}): check discord.api_url`);
  return error;
}

function fieldOf(value: unknown, key: string): unknown {
  return typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[key] : undefined;
}
