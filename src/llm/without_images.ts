import type { ContentBlock, GenerateRequest } from './protocol.js';
import type { LLMProvider } from './provider.js';

/** What a model that cannot see images reads where an image was. */
const LEFT_OUT: ContentBlock = { type: 'text', text: '[An image is left out here: this model is not set up to see images.]' };

/**
 * `provider` for a model that cannot see images (`vision: false`) although a turn's transcript
 * may hold some, written for a model that can: a fallback taking over such a turn (DESIGN §5.4)
 * reads a short note in place of each image instead of a request its server would refuse.
 */
export function withoutImages(provider: LLMProvider): LLMProvider {
  return {
    provider: provider.provider,
    model: provider.model,
    stream: (request, options) => provider.stream(imagesLeftOut(request), options),
  };
}

function imagesLeftOut(request: GenerateRequest): GenerateRequest {
  if (!request.messages.some((message) => message.content.some((block) => block.type === 'image'))) return request;
  return { ...request, messages: request.messages.map((message) => ({ ...message, content: message.content.map((block) => (block.type === 'image' ? LEFT_OUT : block)) })) };
}
