import { pino } from 'pino';
import { parseConfigText } from '../../src/app/config_schema.js';
import { RandomIds } from '../../src/core/ids.js';
import { SystemRandom } from '../../src/core/random.js';
import { SystemClock } from '../../src/core/system_clock.js';
import type { GenerateRequest } from '../../src/llm/protocol.js';
import { ModelBreakerRegistry } from '../../src/recovery/breaker_registry.js';
import { generateWithRecovery, type RecoveryRuntime } from '../../src/recovery/generate_with_recovery.js';
import { recoverySettings } from '../../src/recovery/settings.js';
import { SubsystemGuard } from '../../src/recovery/subsystem_guard.js';
import { llmConfig, testProvider } from '../../test/support/fake_llm/provider.js';
import { FakeLLMServer, sse } from '../../test/support/fake_llm/server.js';

/**
 * How long /stop takes to stop a model call, on the real clock over real HTTP: from abort() to
 * the generation settling, and to the server seeing its connection closed, for an abort during a
 * streaming attempt and during a backoff wait. Target: under 100 ms.
 */
const RUNS = 50;
const REQUEST: GenerateRequest = { messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }] };

const clock = new SystemClock();
const logger = pino({ level: 'silent' });
const settings = recoverySettings(parseConfigText('llm_recovery: { backoff_base_seconds: 30, backoff_cap_seconds: 45 }\n', 'bench', {}).llm_recovery);
const runtime = (): RecoveryRuntime => ({
  clock,
  random: new SystemRandom(),
  breakers: new ModelBreakerRegistry({ ...settings.breaker, generationThreshold: 1_000 }, clock, new RandomIds(), logger),
  guard: new SubsystemGuard(settings.guard, clock, logger),
  settings,
});

function summary(name: string, samples: number[]): string {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number): string => (sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0).toFixed(2);
  return `${name.padEnd(44)} p50 ${at(0.5)} ms  p95 ${at(0.95)} ms  max ${at(1)} ms  (n=${sorted.length})`;
}

async function main(): Promise<void> {
  const fake = await FakeLLMServer.start();
  const provider = testProvider(llmConfig('openai', fake.baseUrl), clock);
  const settled: number[] = [];
  const serverClosed: number[] = [];
  const waitSettled: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    fake.enqueue({ kind: 'stream', chunks: [sse({ choices: [{ index: 0, delta: { content: 'partial' } }] })], then: 'stall' });
    const controller = new AbortController();
    let abortedAt = 0;
    const work = generateWithRecovery(provider, REQUEST, {
      runtime: runtime(),
      signal: controller.signal,
      onStreamEvent: (event) => {
        if (event.type !== 'text_delta') return;
        abortedAt = clock.monotonicNow();
        controller.abort();
      },
    }).catch(() => undefined);
    await work;
    settled.push(clock.monotonicNow() - abortedAt);
    await fake.whenClientClosed(i + 1);
    serverClosed.push(clock.monotonicNow() - abortedAt);
  }
  for (let i = 0; i < RUNS; i++) {
    fake.enqueue({ kind: 'reply', status: 529, body: { error: { type: 'overloaded_error' } } });
    const controller = new AbortController();
    const requestsBefore = fake.requests.length;
    const work = generateWithRecovery(provider, REQUEST, { runtime: runtime(), signal: controller.signal }).catch(() => undefined);
    await fake.whenRequests(requestsBefore + 1);
    await clock.sleep(20, new AbortController().signal);
    const abortedAt = clock.monotonicNow();
    controller.abort();
    await work;
    waitSettled.push(clock.monotonicNow() - abortedAt);
  }
  await fake.close();
  console.log(summary('abort mid-stream: generation settled', settled));
  console.log(summary('abort mid-stream: server saw connection closed', serverClosed));
  console.log(summary('abort during backoff wait: generation settled', waitSettled));
}

await main();
