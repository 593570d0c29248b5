/**
 * Where a failed HTTP call stood: before anything was sent (a known failure) or after the request
 * may have left (an uncertain one for anything with an effect, DESIGN §6).
 */
/** Whether a failed request could have reached the server. */
export type SendStage = 'not_sent' | 'maybe_sent';

/** What a failure says about the request; `what` completes "POST https://host …". */
export interface FetchFailure {
  readonly stage: SendStage;
  readonly what: string;
}

const notSent = (what: string): FetchFailure => ({ stage: 'not_sent', what });
const maybeSent = (what: string): FetchFailure => ({ stage: 'maybe_sent', what });
const TLS_REJECTED = notSent('could not connect securely (the server’s certificate was rejected)');

/**
 * The error code of a failed request: undici's own errors carry it themselves, fetch's TypeError
 * on its `cause`. Calling a `not_sent` failure `failed` is safe: these fail
 * while resolving the host or opening the connection, before a byte of the request is written.
 * Every other code, listed or not, may come after the request left, so it counts as maybe sent;
 * EHOSTUNREACH and ETIMEDOUT are among them because Linux also reports them on a live connection.
 */
const FETCH_ERROR_CODES: ReadonlyMap<string, FetchFailure> = new Map([
  ['ECONNREFUSED', notSent('could not connect (connection refused)')],
  ['ENOTFOUND', notSent('could not resolve the host name')],
  ['EAI_AGAIN', notSent('could not resolve the host name (temporary DNS failure)')],
  ['EAI_NONAME', notSent('could not resolve the host name')],
  ['EAI_FAIL', notSent('could not resolve the host name (DNS failure)')],
  ['UND_ERR_CONNECT_TIMEOUT', notSent('could not connect in time')],
  ['ERR_INVALID_URL', notSent('could not use its URL (invalid)')],
  ['UND_ERR_INVALID_ARG', notSent('was refused as invalid by the HTTP client')],
  ['ERR_TLS_CERT_ALTNAME_INVALID', TLS_REJECTED],
  ['CERT_HAS_EXPIRED', TLS_REJECTED],
  ['DEPTH_ZERO_SELF_SIGNED_CERT', TLS_REJECTED],
  ['SELF_SIGNED_CERT_IN_CHAIN', TLS_REJECTED],
  ['UNABLE_TO_VERIFY_LEAF_SIGNATURE', TLS_REJECTED],
  ['UNABLE_TO_GET_ISSUER_CERT_LOCALLY', TLS_REJECTED],
  ['ECONNRESET', maybeSent('lost the connection (reset by the server)')],
  ['UND_ERR_SOCKET', maybeSent('lost the connection (closed by the server)')],
  ['UND_ERR_CLOSED', maybeSent('lost the connection (closed)')],
  ['EPIPE', maybeSent('lost the connection (broken pipe)')],
  ['ETIMEDOUT', maybeSent('lost the connection (timed out)')],
  ['EHOSTUNREACH', maybeSent('lost the connection (host unreachable)')],
  ['ENETUNREACH', maybeSent('lost the connection (network unreachable)')],
  ['UND_ERR_HEADERS_TIMEOUT', maybeSent('got no response headers in time')],
  ['UND_ERR_BODY_TIMEOUT', maybeSent('got no response body in time')],
]);

/**
 * Where a rejected `fetch` or body read stood, decided on fields only: an aborted `signal` (the
 * tool's timeout or a stop), the error's `AbortError`/`TimeoutError` name, then its `code` (an
 * undici error's own, else its `cause`'s, as fetch reports it) looked up in
 * {@link FETCH_ERROR_CODES}. Anything not known to fail before sending is maybe sent.
 */
export function classifyFetchFailure(error: unknown, signal: AbortSignal, timeoutSeconds: number): FetchFailure {
  const name = signal.aborted ? nameOf(signal.reason) : nameOf(error);
  if (name === 'TimeoutError') return maybeSent(`timed out after ${timeoutSeconds} s`);
  if (signal.aborted || name === 'AbortError') return maybeSent('was stopped');
  const own = fieldOf(error, 'code');
  const code = typeof own === 'string' ? own : fieldOf(fieldOf(error, 'cause'), 'code');
  if (typeof code !== 'string') return maybeSent('failed (no error code)');
  return FETCH_ERROR_CODES.get(code) ?? maybeSent(`failed (${code})`);
}

function fieldOf(value: unknown, key: string): unknown {
  return typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[key] : undefined;
}

function nameOf(value: unknown): unknown {
  return fieldOf(value, 'name');
}
