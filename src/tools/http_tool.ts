import { STATUS_CODES } from 'node:http';
import { request as undiciRequest, type Dispatcher } from 'undici';
import type { ToolsSettings } from './tools_settings.js';
import { headerLookup, toolDispatcher } from '../core/undici_http.js';
import type { JsonObject, JsonValue } from '../llm/protocol.js';
import type { EffectClass } from '../turn_state/ledger_types.js';
import type { Tool, ToolContext, ToolOutcome } from './tool.js';
import { classifyFetchFailure } from './http_failure.js';
import { assertNever } from '../core/assert_never.js';
import { readPrefix, withCutMarker } from './response_prefix.js';
import { componentText, fillUrlTemplate } from './url_template.js';

/** One tool of `tools.http`, with every default filled in. */
export type HttpToolConfig = ToolsSettings['http'][number];

/** The most of an error response's body quoted back to the model, in characters. */
const EXCERPT_CHARS = 300;
/** Enough bytes for {@link EXCERPT_CHARS} characters of UTF-8 (at most 4 bytes each). */
const EXCERPT_BYTES = EXCERPT_CHARS * 4;

/**
 * A tool that calls one configured HTTP endpoint. The model sees `parameters` unchanged as the
 * input schema; `{param}` in the URL takes that input field, and the rest travel as query
 * parameters (GET, DELETE) or as a JSON body (POST, PUT, PATCH). Whether a failure is `failed`
 * or `uncertain` depends on whether the request may have reached the server (DESIGN §6). A call
 * with a trace context sends it as the `traceparent` header, in place of any configured header of
 * that name, so that the endpoint's spans join the turn's trace. Calls go out on the tools'
 * keep-alive connections, one pool per origin.
 */
export function createHttpTool(config: HttpToolConfig): Tool {
  const headers = checkedHeaders(config);
  return {
    name: config.name,
    description: config.description,
    // The configured object itself: it came from YAML, so it is JSON, and the model must see it as written.
    inputSchema: config.parameters as JsonObject,
    effect: config.effect,
    ...(config.approval === undefined ? {} : { approval: config.approval }),
    timeoutMs: config.timeout_seconds * 1000,
    execute: async (input, context) => {
      const outcome = await callEndpoint(config, headers, input, context);
      // An uncertain outcome gets its WARN line from the ledger move, with whose call it was.
      context.logger.debug({ tool: config.name, outcome: outcome.kind, ...(outcome.kind === 'result' ? {} : { error: outcome.error }) }, 'http tool call settled');
      return outcome;
    },
  };
}

/**
 * The configured headers as each call starts from them, checked once: names in lower case, as
 * `Headers` gives them, so that a header set per call replaces a configured one whatever its case.
 * `undefined` when a configured name or value (or the idempotency header's name) is invalid.
 */
function checkedHeaders(config: HttpToolConfig): Readonly<Record<string, string>> | undefined {
  try {
    const headers = new Headers(config.headers);
    // `has` throws on an invalid name: the idempotency header must be one a call can set.
    if (config.effect === 'idempotent' && config.idempotency_header !== undefined) headers.has(config.idempotency_header);
    return Object.fromEntries(headers);
  } catch {
    return undefined;
  }
}

async function callEndpoint(config: HttpToolConfig, headers: Readonly<Record<string, string>> | undefined, input: JsonObject, context: ToolContext): Promise<ToolOutcome> {
  const built = buildRequest(config, headers, input, context);
  if (built.kind === 'refused') return { kind: 'failed', error: built.error };
  const { url, options, target } = built;
  if (context.signal.aborted) return { kind: 'failed', error: `${target} was stopped before the request was sent: nothing happened.` };
  let response: Dispatcher.ResponseData;
  try {
    response = await undiciRequest(url, { ...options, dispatcher: toolDispatcher, signal: context.signal });
  } catch (error) {
    const failure = classifyFetchFailure(error, context.signal, config.timeout_seconds);
    switch (failure.stage) {
      case 'not_sent':
        return { kind: 'failed', error: `${target} ${failure.what} before the request was sent: nothing happened.` };
      case 'maybe_sent':
        return afterSending(config.effect, `${target} ${failure.what} while the request was in flight`);
      default:
        return assertNever(failure.stage);
    }
  }
  return outcomeOfResponse(config, response, target, context.signal);
}

/** What a call sends, but where and with which signal. */
interface RequestParts {
  readonly method: HttpToolConfig['method'];
  readonly headers: Record<string, string>;
  readonly body: string | null;
}

type Built = { readonly kind: 'request'; readonly url: URL; readonly options: RequestParts; readonly target: string } | { readonly kind: 'refused'; readonly error: string };

/** The request for `input`, or why there is none; nothing here touches the network. */
function buildRequest(config: HttpToolConfig, configured: Readonly<Record<string, string>> | undefined, input: JsonObject, context: ToolContext): Built {
  const what = `${config.method} for ${config.name}`;
  const filled = fillUrlTemplate(config.url, input);
  switch (filled.kind) {
    case 'filled':
      break;
    case 'missing':
      return { kind: 'refused', error: `${what} was not sent: the URL needs the input field "${filled.name}", which is missing.` };
    case 'escapes_segment':
      return { kind: 'refused', error: `${what} was not sent: invalid input: ${pathFields(filled.names)} may not be empty, "." or "..", nor make its path segment one of those.` };
    default:
      return assertNever(filled);
  }
  let url: URL;
  try {
    url = new URL(filled.url);
  } catch {
    return { kind: 'refused', error: `${what} was not sent: the URL is invalid once the input is filled in.` };
  }
  // The origin only: paths and queries may hold secrets (webhook tokens, API keys).
  const target = `${config.method} ${url.origin}`;
  // Credentials in the URL are refused, as fetch refused them.
  if (configured === undefined || url.username !== '' || url.password !== '') {
    return { kind: 'refused', error: `${target} was not sent: the request could not be built (is a configured header name or value invalid?).` };
  }
  const headers = { ...configured };
  if (config.effect === 'idempotent') {
    if (config.idempotency_header === undefined) return { kind: 'refused', error: `${target} was not sent: the tool has no idempotency_header configured.` };
    headers[config.idempotency_header.toLowerCase()] = context.idempotencyKey;
  }
  if (context.traceparent !== undefined) headers['traceparent'] = context.traceparent;
  const rest = Object.entries(input).filter(([key]) => !filled.used.has(key));
  const body = placeInput(config.method, url, rest, headers);
  return { kind: 'request', url, options: { method: config.method, headers, body }, target };
}

/** Puts the fields the URL did not take where `method` carries input; returns the body, if any. */
function placeInput(method: HttpToolConfig['method'], url: URL, fields: readonly [string, JsonValue][], headers: Record<string, string>): string | null {
  switch (method) {
    case 'GET':
    case 'DELETE': {
      const pairs = fields.flatMap(([key, value]) => (Array.isArray(value) ? value : [value]).map((item) => `${encodeURIComponent(key)}=${encodeURIComponent(componentText(item))}`));
      if (pairs.length > 0) url.search = [url.search.slice(1), ...pairs].filter((part) => part !== '').join('&');
      return null;
    }
    case 'POST':
    case 'PUT':
    case 'PATCH':
      headers['content-type'] ??= 'application/json';
      return JSON.stringify(Object.fromEntries(fields));
    default:
      return assertNever(method);
  }
}

/** `the URL path field "id"`, or `the URL path fields "a", "b"`. */
function pathFields(names: readonly string[]): string {
  return `the URL path field${names.length === 1 ? '' : 's'} ${names.map((name) => JSON.stringify(name)).join(', ')}`;
}

type StatusClass = 'success' | 'redirect' | 'client_error' | 'server_error';

/** Anything outside 2xx–4xx is treated as a server error: the server may have acted on it. */
function statusClass(status: number): StatusClass {
  if (status >= 200 && status < 300) return 'success';
  if (status >= 300 && status < 400) return 'redirect';
  if (status >= 400 && status < 500) return 'client_error';
  return 'server_error';
}

async function outcomeOfResponse(config: HttpToolConfig, response: Dispatcher.ResponseData, target: string, signal: AbortSignal): Promise<ToolOutcome> {
  const { statusCode, body } = response;
  const headers = headerLookup(response.headers);
  // Undici does not pass on the reason phrase; the standard one for the status stands in for it.
  const statusText = STATUS_CODES[statusCode] ?? '';
  const answered = `${target} answered HTTP ${statusCode}${statusText === '' ? '' : ` ${statusText}`}`;
  const kind = statusClass(statusCode);
  switch (kind) {
    case 'success': {
      try {
        const prefix = await readPrefix(body, config.max_response_bytes);
        return { kind: 'result', text: withCutMarker(prefix, config.max_response_bytes, headers) };
      } catch (error) {
        const failure = classifyFetchFailure(error, signal, config.timeout_seconds);
        return afterSending(config.effect, `${answered} but ${failure.what} while the response was being read`);
      }
    }
    case 'redirect': {
      // A 303 after a POST usually means the change was made: a redirect proves nothing either way.
      const location = headers.get('location');
      const redirect = location === null ? 'a redirect, not followed' : `a redirect to ${excerpt(location)}, not followed`;
      return afterSending(config.effect, `${answered} (${redirect})`, await serverSaid(body));
    }
    case 'client_error':
      return { kind: 'failed', error: `${answered}.${await serverSaid(body)}` };
    case 'server_error':
      return afterSending(config.effect, answered, await serverSaid(body));
    default:
      return assertNever(kind);
  }
}

/**
 * The outcome of a call that may have reached the server: a `read` changed nothing, so it simply
 * failed; anything else may have had its effect, so it is uncertain (never `failed`, DESIGN §6).
 */
function afterSending(effect: EffectClass, happened: string, serverSaid = ''): ToolOutcome {
  switch (effect) {
    case 'read':
      return { kind: 'failed', error: `${happened}.${serverSaid}` };
    case 'idempotent':
    case 'write':
      return { kind: 'uncertain', error: `${happened}: the change may or may not have happened.${serverSaid}` };
    default:
      return assertNever(effect);
  }
}

/** ` The server said: …` with a short excerpt of the body, or nothing when it is empty or unreadable. */
async function serverSaid(body: AsyncIterable<Uint8Array>): Promise<string> {
  try {
    const text = excerpt(new TextDecoder().decode((await readPrefix(body, EXCERPT_BYTES)).bytes));
    return text === '' ? '' : ` The server said: ${text}`;
  } catch {
    return '';
  }
}

function excerpt(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > EXCERPT_CHARS ? `${flat.slice(0, EXCERPT_CHARS)}…` : flat;
}
