import { Agent } from 'undici';

/**
 * HTTP over undici's own `request` (DESIGN §4): the keep-alive connection pools of model calls and
 * of HTTP tool calls, and how the headers undici parsed are read.
 */
/**
 * The connection pool of every model call: undici's `Agent` keeps connections alive and pools them
 * per origin, so the calls of every provider and attempt to one API share them. Undici's own
 * headers and body timeouts (300 s by default) are off: each attempt's limits (`attempt_limits.ts`:
 * the request, stall and response timeouts) decide how long it may wait, whatever they are set to.
 */
export const modelDispatcher = new Agent({ headersTimeout: 0, bodyTimeout: 0 });

/**
 * The connection pool of every HTTP tool call: undici's `Agent` keeps connections alive and pools
 * them per origin, so the calls of all tools to one endpoint share them. Undici's headers and body
 * timeouts stay at their 300 s defaults, as fetch had them; each call's own timeout is the tool's.
 */
export const toolDispatcher = new Agent();

/** What reading a response's headers needs; a fetch `Headers` object is one. */
export interface HeaderLookup {
  /** The header's value, `null` when absent. */
  get(name: string): string | null;
}

/**
 * The headers undici parsed (lower-case names, a repeated header as an array of values), read as
 * `Headers.get` reads them: the values of a repeated header joined with `, `.
 */
export function headerLookup(headers: Readonly<Record<string, string | string[] | undefined>>): HeaderLookup {
  return {
    get: (name) => {
      const value = headers[name.toLowerCase()];
      if (value === undefined) return null;
      return Array.isArray(value) ? value.join(', ') : value;
    },
  };
}
