import { z } from 'zod';
import { optionalSecret, seconds } from '../config/schema_parts.js';

/** The model APIs Holdfast speaks. */
export const LLM_PROVIDERS = ['openai', 'openai-responses', 'anthropic'] as const;
export type LLMProviderName = (typeof LLM_PROVIDERS)[number];

/** The `llm` section. */
export const llmSection = z
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
    stream_stall_timeout_seconds: seconds(
      'How long a streaming response may send no data (text, tool calls, usage; keep-alive comments do not count) before it counts as broken and is retried',
      60,
    ),
    max_response_seconds: seconds(
      'The longest one response may take, however steadily it streams; a longer one is cut off and retried within `llm_recovery.generation_deadline_seconds`, so a reply never holds a channel longer than this plus that deadline',
      600,
    ),
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

/** The validated section, defaults filled in. */
export type LlmSettings = z.output<typeof llmSection>;
