import { z } from 'zod';
import { optionalSecret, seconds } from '../config/schema_parts.js';

/** The model APIs Holdfast speaks. */
export const LLM_PROVIDERS = ['openai', 'openai-responses', 'anthropic'] as const;
export type LLMProviderName = (typeof LLM_PROVIDERS)[number];

/** The keys that describe one model, shared by `llm` and each of `llm.fallbacks`. */
const modelFields = {
  provider: z
    .enum(LLM_PROVIDERS)
    .default('openai')
    .describe(
      '`openai`: Chat Completions (OpenAI and servers that copy it: Ollama /v1, vLLM, OpenRouter, LM Studio, ' +
        'Moonshot, DeepSeek); `openai-responses`: the OpenAI Responses API; `anthropic`: Anthropic Messages.',
    ),
  base_url: z
    .url({ protocol: /^https?$/ })
    .optional()
    .describe('The API root, e.g. `http://localhost:11434/v1` for Ollama. Default: https://api.openai.com/v1, or https://api.anthropic.com/v1 for `anthropic`.'),
  api_key: optionalSecret.describe('The API key, usually `${OPENAI_API_KEY}` or `${ANTHROPIC_API_KEY}`. Local servers may need none.'),
  api_keys: z.array(z.string().min(1)).min(1).optional().describe('Several API keys instead of `api_key`: a rate-limited key (HTTP 429) hands over to the next one.'),
  model: z.string().min(1).optional().describe('The model name the provider knows, e.g. `gpt-4.1-mini` or `claude-sonnet-4-5`. Required to talk to a model.'),
  max_tokens: z.int().positive().default(4096).describe('The most tokens one model reply may use.'),
  temperature: z.number().min(0).max(2).optional().describe('Sampling temperature; the provider default when absent.'),
  request_timeout_seconds: seconds('How long to wait for a response to begin', 60),
  stream_stall_timeout_seconds: seconds('How long a streaming response may send no data (text, tool calls, usage; keep-alive comments do not count) before it counts as broken and is retried', 60),
  max_response_seconds: seconds(
    'The longest one response may take, however steadily it streams; a longer one is cut off and retried within ' +
      '`llm_recovery.generation_deadline_seconds`, so a reply never holds a channel longer than this plus that deadline',
    600,
  ),
  headers: z.record(z.string(), z.string()).default({}).describe('Extra HTTP headers sent with every request (e.g. OpenRouter `HTTP-Referer`).'),
  vision: z.boolean().default(false).describe('Whether the model accepts images. On, image attachments are sent to it; off, it is only told what was attached, so it can say so.'),
};

const oneKeyList = (model: { readonly api_key?: string | undefined; readonly api_keys?: readonly string[] | undefined }): boolean => model.api_key === undefined || model.api_keys === undefined;
const ONE_KEY_LIST = { path: ['api_keys'], message: 'give api_key or api_keys, not both' };

/** One entry of `llm.fallbacks`: a model with the keys of `llm`, its name required. */
const fallbackSchema = z
  .strictObject({ ...modelFields, model: z.string().min(1).describe('The model name the provider knows; names of the primary and its fallbacks must differ.') })
  .refine(oneKeyList, ONE_KEY_LIST)
  .describe('A further model, described with the same keys as `llm`.');

/** The default subscript of a reply written by a fallback model on Discord. */
export const DEFAULT_FALLBACK_NOTE = '-# answered by <model>';

const priceSchema = z
  .strictObject({
    input: z.number().nonnegative().describe('The price of a million input tokens.'),
    cached_input: z.number().nonnegative().optional().describe('The price of a million input tokens read from the provider’s prompt cache; `input`’s when absent.'),
    output: z.number().nonnegative().describe('The price of a million output tokens (reasoning included).'),
  })
  .describe('What one model’s tokens cost, per million, in the operator’s currency.');

/** The `llm` section. */
export const llmSection = z
  .strictObject({
    ...modelFields,
    fallbacks: z
      .array(fallbackSchema)
      .default([])
      .describe(
        'Further models, in order, each with the keys of `llm`. A model that is overloaded hands the turn over to the next one its breaker admits, even in the middle of a turn; none by default.',
      ),
    fallback_note: z.string().default(DEFAULT_FALLBACK_NOTE).describe('The line a Discord reply written by a fallback model ends with; `<model>` stands for its name. Empty: no line.'),
    prices: z
      .record(z.string().min(1), priceSchema)
      .default({})
      .describe(
        'Prices per model name (`llm.model` or a fallback’s `model`), which turn tokens into cost for `/usage`, `holdfast usage` and ' +
          '`limits.per_turn.max_cost`; without a price, usage is shown in tokens only.',
      ),
  })
  .refine(oneKeyList, ONE_KEY_LIST)
  .superRefine((llm, context) => {
    for (const { path, message } of fallbackProblems(llm)) context.addIssue({ code: 'custom', path, message });
  })
  .describe('The language model, and the models that stand in for it when it is overloaded.');

/** The validated section, defaults filled in. */
export type LlmSettings = z.output<typeof llmSection>;

/** What describes one model: the `llm` section without its fallbacks, or one of `llm.fallbacks`. */
export type ModelSettings = Omit<LlmSettings, 'fallbacks' | 'fallback_note' | 'prices'>;

/** The names of the configured models, the primary first: the names `overrides` may list. */
export function configuredModelNames(llm: Pick<LlmSettings, 'model' | 'fallbacks'>): string[] {
  return llm.model === undefined ? [] : [llm.model, ...llm.fallbacks.map((fallback) => fallback.model)];
}

/** Fallbacks without a primary, model names given twice and prices of models not configured, with the key each problem is at. */
function fallbackProblems(llm: Pick<LlmSettings, 'model' | 'fallbacks' | 'prices'>): { readonly path: (string | number)[]; readonly message: string }[] {
  const unpriced = Object.keys(llm.prices).flatMap((name) =>
    configuredModelNames(llm).includes(name) ? [] : [{ path: ['prices', name], message: `no model is called ${JSON.stringify(name)}: prices are given by the names of llm.model and the fallbacks` }],
  );
  if (llm.fallbacks.length === 0) return unpriced;
  if (llm.model === undefined) return [{ path: ['fallbacks'], message: 'fallbacks follow a primary model: set llm.model too' }];
  const named = new Map<string, string>([[llm.model, 'llm.model']]);
  return llm.fallbacks
    .flatMap((fallback, index) => {
      const earlier = named.get(fallback.model);
      named.set(fallback.model, `llm.fallbacks[${index}].model`);
      return earlier === undefined ? [] : [{ path: ['fallbacks', index, 'model'], message: `${JSON.stringify(fallback.model)} is already the name of ${earlier}: each model needs a name of its own` }];
    })
    .concat(unpriced);
}

/** What one model's tokens cost, per million. */
export type ModelPrice = z.output<typeof priceSchema>;
