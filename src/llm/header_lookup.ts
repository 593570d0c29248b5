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
