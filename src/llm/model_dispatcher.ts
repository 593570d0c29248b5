import { Agent } from 'undici';

/**
 * The connection pool of every model call: undici's `Agent` keeps connections alive and pools them
 * per origin, so the calls of every provider and attempt to one API share them. Undici's own
 * headers and body timeouts (300 s by default) are off: each attempt's limits (`attempt_limits.ts`:
 * the request, stall and response timeouts) decide how long it may wait, whatever they are set to.
 */
export const modelDispatcher = new Agent({ headersTimeout: 0, bodyTimeout: 0 });
