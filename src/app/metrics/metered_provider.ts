import type { Counter } from 'prom-client';
import { isLLMError } from '../../llm/errors.js';
import type { GenerateRequest } from '../../llm/protocol.js';
import type { LLMProvider, StreamEvent } from '../../llm/provider.js';

type AttemptsCounter = Counter<'provider' | 'model' | 'result'>;

/**
 * `provider`, counting each request in `holdfast_model_attempts_total` once, by its result: `ok`
 * when the stream yields its response, the `kind` of the typed model error it fails with
 * (`capacity`, `transport`, `rate_limit`, `auth`, `request`), `aborted` when the caller aborted
 * it (a `/stop`, a shutdown), and `unclassified` for any other failure.
 */
export function meteredProvider(provider: LLMProvider, attempts: AttemptsCounter): LLMProvider {
  return {
    provider: provider.provider,
    model: provider.model,
    stream: (request, options) => countedStream(provider, request, options.signal, attempts),
  };
}

async function* countedStream(provider: LLMProvider, request: GenerateRequest, signal: AbortSignal, attempts: AttemptsCounter): AsyncGenerator<StreamEvent> {
  const count = (result: string): void => attempts.inc({ provider: provider.provider, model: provider.model, result });
  let answered = false;
  try {
    for await (const event of provider.stream(request, { signal })) {
      if (event.type === 'done' && !answered) {
        answered = true;
        count('ok');
      }
      yield event;
    }
  } catch (error) {
    if (!answered) count(failureResult(error, signal));
    throw error;
  }
}

function failureResult(error: unknown, signal: AbortSignal): string {
  if (isLLMError(error)) return error.kind;
  return signal.aborted ? 'aborted' : 'unclassified';
}
