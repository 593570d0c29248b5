import { Agent } from 'undici';

/**
 * The connection pool of every HTTP tool call: undici's `Agent` keeps connections alive and pools
 * them per origin, so the calls of all tools to one endpoint share them. Undici's headers and body
 * timeouts stay at their 300 s defaults, as fetch had them; each call's own timeout is the tool's.
 */
export const toolDispatcher = new Agent();
