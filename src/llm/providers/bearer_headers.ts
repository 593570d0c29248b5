/** The headers of a JSON request to an OpenAI-style API: the key as a bearer token when there is one, then the configured extras. */
export function bearerJsonHeaders(apiKey: string | undefined, extra: Readonly<Record<string, string>>): Record<string, string> {
  return { 'content-type': 'application/json', ...(apiKey === undefined ? {} : { authorization: `Bearer ${apiKey}` }), ...extra };
}
