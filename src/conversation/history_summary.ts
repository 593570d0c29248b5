import type { Message } from '../llm/protocol.js';
import { generateOnRoute, type RecoveryRuntime } from '../recovery/generate_with_recovery.js';
import type { ModelRoute } from '../recovery/model_route.js';
import type { Summarizer } from './history_policy.js';

const INSTRUCTION = 'Summarise the conversation below in a few sentences, keeping names, facts, decisions and open questions. Write only the summary.';

/** Summarises history beyond its budget on the configured models through the same recovery policy as every model call; `signal` ends its waits at shutdown. */
export function summarizeThrough(route: ModelRoute | undefined, recovery: RecoveryRuntime, signal: AbortSignal): Summarizer {
  return async (messages: Message[]) => {
    if (route === undefined) throw new Error('no model is configured');
    const text = messages.map((m) => `${m.role}: ${m.content.flatMap((b) => (b.type === 'text' ? [b.text] : [])).join('')}`).join('\n');
    const { response } = await generateOnRoute(route, { system: INSTRUCTION, messages: [{ role: 'user', content: [{ type: 'text', text }] }] }, { runtime: recovery, signal });
    return response.content.flatMap((block) => (block.type === 'text' ? [block.text] : [])).join('');
  };
}
