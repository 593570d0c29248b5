import { z } from 'zod';
import { LOG_FORMATS, LOG_LEVELS } from '../core/logger.js';

/** A string in which an empty value means "not set", so `${VAR:-}` can switch a feature off. */
const optionalSecret = z
  .string()
  .optional()
  .transform((value) => (value === '' ? undefined : value));

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

const turnStateSchema = z
  .strictObject({
    enabled: z.boolean().default(true).describe('Keep turns durable. Off, the bot still answers but an interrupted reply is lost.'),
    db_path: z
      .string()
      .min(1)
      .default('data/turn_state/turns.sqlite3')
      .describe('The SQLite file that holds turns, transcripts and the tool-call ledger; relative to the working directory. Blobs live in a folder beside it.'),
    lease_ttl_seconds: seconds('How long a turn owner’s lease lasts without a heartbeat (heartbeats come every third of it)', 30),
    resume_ttl_hours: z.number().positive().default(24).describe('How long a suspended turn stays resumable after its last real progress, in hours.'),
    payload_retention_days: z.number().positive().default(7).describe('How long a turn’s transcript and tool results are kept for diagnosis, in days; then only its identity and ledger remain.'),
    ledger_retention_days: z
      .number()
      .positive()
      .default(90)
      .describe('How long ledger rows are kept, in days. Calls whose outcome is unknown or awaits manual resolution are never deleted automatically.'),
  })
  .describe('The durable turn store.');

/** The whole configuration. An empty file is valid: every field has a default or is optional. */
export const configSchema = z
  .strictObject({
    logging: loggingSchema.prefault({}),
    discord: discordSchema.prefault({}),
    llm: llmSchema.prefault({}),
    llm_recovery: llmRecoverySchema.prefault({}),
    turn_state: turnStateSchema.prefault({}),
  })
  .describe('Holdfast configuration');

/** The validated configuration, with every default filled in. */
export type Config = z.output<typeof configSchema>;
