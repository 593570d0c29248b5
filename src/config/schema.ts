import { z } from 'zod';
import { LOG_FORMATS, LOG_LEVELS } from '../core/logger.js';

/** A string in which an empty value means "not set", so `${VAR:-}` can switch a feature off. */
const optionalSecret = z
  .string()
  .optional()
  .transform((value) => (value === '' ? undefined : value));

const ids = (what: string) => z.array(z.string().min(1)).default([]).describe(`${what} (Discord ids are strings: quote them in YAML).`);

const loggingSchema = z
  .strictObject({
    level: z.enum(LOG_LEVELS).default('info').describe('The least severe level that is logged.'),
    format: z
      .enum(LOG_FORMATS)
      .default('auto')
      .describe('`json`: one JSON object a line; `pretty`: human-readable; `auto`: pretty when stderr is a terminal, else JSON.'),
  })
  .describe('Logs go to stderr; stdout belongs to the console adapter.');

const discordSchema = z
  .strictObject({
    token: optionalSecret.describe(
      'The bot token, usually `${DISCORD_TOKEN}`. When it is absent or empty the bot runs in the terminal instead.',
    ),
    api_url: z.url({ protocol: /^https?$/ }).optional().describe('The REST API root, for proxies and tests; Discord’s own by default.'),
    channels: ids('Channels where every message is for the bot, without a mention'),
    guild_ids: ids('Servers to register the slash commands in (instantly); empty registers them globally'),
    edit_interval_ms: z.int().positive().default(1500).describe('How often a streamed reply is edited, at most, in milliseconds.'),
    delivery_backoff_seconds: z
      .number()
      .positive()
      .default(1)
      .describe('The first wait before posting a final reply again after Discord failed to take it (a 5xx answer or a lost connection); each further wait doubles, up to 30 seconds.'),
    delivery_deadline_seconds: z
      .number()
      .positive()
      .default(600)
      .describe('How long the bot keeps trying to post a final reply; a reply not posted by then is posted after the next start.'),
    max_attachment_mb: z
      .number()
      .positive()
      .default(8)
      .describe('The largest image attachment (PNG, JPEG, WebP, GIF) that is downloaded and shown to the model, in megabytes (MiB); a larger one is left out and the model is told so.'),
    max_text_attachment_kb: z
      .number()
      .positive()
      .default(100)
      .describe('The largest text attachment (`.txt`, `.md`, `.json`, `.csv`, source code, …) whose content is given to the model, in kilobytes (KiB); a larger one is left out and the model is told so.'),
  })
  .describe('The Discord adapter.');

/** The model APIs Holdfast speaks. */
export const LLM_PROVIDERS = ['openai', 'openai-responses', 'anthropic'] as const;
export type LLMProviderName = (typeof LLM_PROVIDERS)[number];

const seconds = (what: string, fallback: number) => z.number().positive().default(fallback).describe(`${what}, in seconds (fractions allowed).`);

const llmSchema = z
  .strictObject({
    provider: z
      .enum(LLM_PROVIDERS)
      .default('openai')
      .describe(
        '`openai`: Chat Completions (OpenAI and servers that copy it: Ollama /v1, vLLM, OpenRouter, LM Studio, Moonshot, DeepSeek); `openai-responses`: the OpenAI Responses API; `anthropic`: Anthropic Messages.',
      ),
    base_url: z
      .url({ protocol: /^https?$/ })
      .optional()
      .describe('The API root, e.g. `http://localhost:11434/v1` for Ollama. Default: https://api.openai.com/v1, or https://api.anthropic.com/v1 for `anthropic`.'),
    api_key: optionalSecret.describe('The API key, usually `${OPENAI_API_KEY}` or `${ANTHROPIC_API_KEY}`. Local servers may need none.'),
    api_keys: z
      .array(z.string().min(1))
      .min(1)
      .optional()
      .describe('Several API keys instead of `api_key`: a rate-limited key (HTTP 429) hands over to the next one.'),
    model: z.string().min(1).optional().describe('The model name the provider knows, e.g. `gpt-4.1-mini` or `claude-sonnet-4-5`. Required to talk to a model.'),
    max_tokens: z.int().positive().default(4096).describe('The most tokens one model reply may use.'),
    temperature: z.number().min(0).max(2).optional().describe('Sampling temperature; the provider default when absent.'),
    request_timeout_seconds: seconds('How long to wait for a response to begin', 60),
    stream_stall_timeout_seconds: seconds('How long a streaming response may send nothing before it counts as broken', 60),
    headers: z.record(z.string(), z.string()).default({}).describe('Extra HTTP headers sent with every request (e.g. OpenRouter `HTTP-Referer`).'),
    vision: z
      .boolean()
      .default(false)
      .describe('Whether the model accepts images. On, image attachments are sent to it; off, it is only told what was attached, so it can say so.'),
  })
  .refine((llm) => llm.api_key === undefined || llm.api_keys === undefined, {
    path: ['api_keys'],
    message: 'give api_key or api_keys, not both',
  })
  .describe('The language model.');

const llmRecoverySchema = z
  .strictObject({
    generation_deadline_seconds: seconds('How long one generation may keep retrying an overloaded or unreachable model', 300),
    backoff_base_seconds: seconds('The first backoff step; each retry doubles it, with full jitter', 1),
    backoff_cap_seconds: seconds('The longest backoff between two attempts', 45),
    retry_after_max_seconds: seconds("The most a provider's retry-after is honoured", 90),
    breaker_generation_threshold: z.int().positive().default(1).describe('How many failed generations in a row (each counted once, however many attempts it made) open the capacity breaker of a model.'),
    breaker_cooldown_base_seconds: seconds('How long an open breaker waits before it lets one probe through; doubles each time the probe fails', 30),
    breaker_cooldown_cap_seconds: seconds('The longest breaker cooldown', 300),
    breaker_probe_timeout_seconds: seconds('How long a probe may go without reporting back before its slot is freed for another', 300),
    guard_failure_threshold: z.int().positive().default(3).describe('How many real failures in a row (not overloads) mark a provider unavailable until it succeeds again.'),
    guard_degraded_seconds: seconds('How long an overload marks a provider degraded', 60),
  })
  .refine((r) => r.backoff_cap_seconds >= r.backoff_base_seconds, { path: ['backoff_cap_seconds'], message: 'must be at least backoff_base_seconds' })
  .refine((r) => r.breaker_cooldown_cap_seconds >= r.breaker_cooldown_base_seconds, {
    path: ['breaker_cooldown_cap_seconds'],
    message: 'must be at least breaker_cooldown_base_seconds',
  })
  .describe('How model calls wait out overloads: the deadline, backoff, the per-model capacity breaker and the provider health guard.');

/** What a tool does to the world (DESIGN §6); the ledger decides what may happen to a call after a crash by it. */
export const EFFECT_CLASSES = ['read', 'idempotent', 'write'] as const;

/** The tools Holdfast brings; `tools.builtin` picks which are offered. */
export const BUILTIN_TOOLS = ['web_fetch', 'remember', 'recall'] as const;

const TOOL_NAME = /^[A-Za-z0-9_-]{1,64}$/;

const httpToolSchema = z
  .strictObject({
    name: z.string().regex(TOOL_NAME, 'letters, digits, _ and - only, at most 64').describe('The name the model calls the tool by.'),
    description: z.string().min(1).describe('What the tool does, for the model.'),
    method: z.enum(['GET', 'POST', 'PUT', 'PATCH', 'DELETE']).default('GET').describe('GET and DELETE send the input as query parameters, the others as a JSON body.'),
    url: z
      .string()
      .refine((url) => URL.canParse(url.replace(/\{[^{}]*\}/g, 'x')) && /^https?:\/\//i.test(url), 'expected an http(s) URL')
      .describe('The endpoint; `{param}` is replaced by that input field, URL-encoded, and not sent again.'),
    headers: z.record(z.string(), z.string()).default({}).describe('Headers sent with every call; put secrets in the environment, e.g. `Bearer ${WEATHER_TOKEN}`.'),
    parameters: z
      .record(z.string(), z.unknown())
      .default({ type: 'object', properties: {} })
      .describe('JSON Schema of the input, sent to the model unchanged and checked before the call.'),
    effect: z
      .enum(EFFECT_CLASSES)
      .describe('`read`: changes nothing; `idempotent`: the endpoint honours an idempotency key; `write`: anything else. An uncertain `write` is never retried automatically.'),
    idempotency_header: z.string().min(1).optional().describe('For `idempotent` tools: the header that carries the call’s stable idempotency key.'),
    timeout_seconds: seconds('How long one call may take', 30),
    max_response_bytes: z.int().positive().default(65_536).describe('The most of a response body given to the model; longer bodies are cut with a marker.'),
  })
  .refine((tool) => tool.effect !== 'idempotent' || tool.idempotency_header !== undefined, {
    path: ['idempotency_header'],
    message: 'required for an idempotent tool: the header that carries the idempotency key',
  });

const toolsSchema = z
  .strictObject({
    builtin: z.array(z.enum(BUILTIN_TOOLS)).default([...BUILTIN_TOOLS]).describe('The built-in tools to offer.'),
    web_fetch: z
      .strictObject({
        allow_private: z
          .array(z.string().min(1))
          .default([])
          .describe('Hosts or address ranges (CIDR) that web_fetch may reach even though they are private, loopback or link-local.'),
        timeout_seconds: seconds('How long one fetch may take', 20),
        max_bytes: z.int().positive().default(1_000_000).describe('The most bytes downloaded per fetch.'),
        max_chars: z.int().positive().default(20_000).describe('The most characters of text given to the model.'),
        max_redirects: z.int().nonnegative().default(5).describe('How many redirects are followed, each checked like the first URL.'),
      })
      .prefault({})
      .describe('The `web_fetch` tool: public web pages as text.'),
    memory: z
      .strictObject({
        recall_limit: z.int().positive().default(20).describe('The most notes one recall returns.'),
      })
      .prefault({})
      .describe('The `remember` and `recall` tools: notes per user or per channel, kept in the store file (`turn_state.db_path`).'),
    http: z.array(httpToolSchema).default([]).describe('Tools defined here, each one HTTP endpoint.'),
  })
  .superRefine((tools, context) => {
    const taken = new Set<string>(tools.builtin);
    tools.http.forEach((tool, index) => {
      if (taken.has(tool.name)) context.addIssue({ code: 'custom', path: ['http', index, 'name'], message: `the tool name ${JSON.stringify(tool.name)} is already taken` });
      taken.add(tool.name);
    });
  })
  .describe('The tools the model may call.');

const toolRuleSchema = z
  .strictObject({
    allow_users: ids('Only these users may use the tool (with allow_roles: users matching either)'),
    allow_roles: ids('Only members with one of these roles may use the tool'),
    allow_channels: ids('The tool may be used only in these channels'),
    deny_users: ids('These users may never use the tool'),
    deny_roles: ids('Members with one of these roles may never use the tool'),
    deny_channels: ids('The tool is never offered in these channels'),
  })
  .describe('Who may use one tool, and where; a deny always wins.');

const permissionsSchema = z
  .strictObject({
    admins: ids('Users who may use every tool and stop anyone’s turn'),
    tools: z.record(z.string(), toolRuleSchema).default({}).describe('Rules per tool name; a tool without rules is offered to everyone.'),
  })
  .describe('Who may use which tool.');

const chatSchema = z
  .strictObject({
    system_prompt: z
      .string()
      .default('You are Holdfast, a helpful assistant in a Discord server. Answer concisely. Use tools when they help, and say plainly when a tool failed.')
      .describe('The system prompt of every turn.'),
    max_iterations: z.int().positive().default(20).describe('The most model calls one turn may make.'),
    max_tool_calls: z.int().nonnegative().default(30).describe('The most tool calls one turn may run; calls beyond it are refused, never run.'),
    max_continuations: z.int().nonnegative().default(2).describe('How many times a reply cut off by the token limit is continued.'),
    max_queued_per_channel: z.int().nonnegative().default(5).describe('How many messages may wait for a channel’s running turn; more are answered "busy".'),
    history_max_chars: z.int().positive().default(24_000).describe('How much of a channel’s history, in characters, goes with each request; older messages are dropped or summarised.'),
    compaction: z.enum(['drop', 'summarize']).default('drop').describe('`drop`: history beyond the budget is dropped, oldest first; `summarize`: it is summarised once by the model.'),
  })
  .describe('The turn engine: the system prompt and the budgets of one turn.');

const turnStateSchema = z
  .strictObject({
    enabled: z
      .boolean()
      .default(true)
      .describe('Keep turns, conversation history and memory notes in the store file. Off, the bot still answers, but an interrupted reply is lost and history and notes last only until the bot stops.'),
    db_path: z
      .string()
      .min(1)
      .default('data/turn_state/turns.sqlite3')
      .describe(
        'The one SQLite file that holds everything the bot keeps: turns, transcripts, the tool-call ledger, replies, conversation history and memory notes; relative to the working directory. Blobs live in a folder beside it.',
      ),
    lease_ttl_seconds: seconds('How long a turn owner’s lease lasts without a heartbeat (heartbeats come every third of it)', 30),
    housekeeping_interval_seconds: seconds('How often the expired-lease and retention sweeps run', 300),
    auto_resume: z.boolean().default(true).describe('Continue a turn suspended by an overload by itself once the model’s breaker lets a probe through (not across restarts).'),
    resume_ttl_hours: z.number().positive().default(24).describe('How long a suspended turn stays resumable after its last real progress, in hours.'),
    payload_retention_days: z.number().positive().default(7).describe('How long a turn’s transcript and tool results are kept for diagnosis, in days; then only its identity and ledger remain.'),
    ledger_retention_days: z
      .number()
      .positive()
      .default(90)
      .describe('How long ledger rows are kept, in days. Calls whose outcome is unknown or awaits manual resolution are never deleted automatically.'),
  })
  .describe('The store: one file for everything the bot keeps.');

/** The whole configuration. An empty file is valid: every field has a default or is optional. */
export const configSchema = z
  .strictObject({
    logging: loggingSchema.prefault({}),
    discord: discordSchema.prefault({}),
    llm: llmSchema.prefault({}),
    llm_recovery: llmRecoverySchema.prefault({}),
    chat: chatSchema.prefault({}),
    turn_state: turnStateSchema.prefault({}),
    tools: toolsSchema.prefault({}),
    permissions: permissionsSchema.prefault({}),
  })
  .describe('Holdfast configuration');

/** The validated configuration, with every default filled in. */
export type Config = z.output<typeof configSchema>;
