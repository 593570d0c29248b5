import { pino } from 'pino';
import { afterEach, beforeEach } from 'vitest';
import { consoleMessageSource } from '../../src/console/console_transport.js';
import type { ConversationDeps } from '../../src/conversation/conversation_deps.js';
import type { InboundMessage } from '../../src/conversation/transport.js';
import { ManualClock } from './manual_clock.js';
import { NO_FAULTS } from '../../src/engine/fault_points.js';
import { deriveCatalog } from '../../src/tools/catalog.js';
import { NO_OPERATOR_STORE, noTurnStore } from '../../src/turn_state/no_store.js';
import { targetToolsConfig } from './engine_harness.js';
import { llmConfig, testProvider } from './fake_llm/provider.js';
import { FakeLLMServer } from './fake_llm/server.js';
import { recordingSink, type SeenEvent } from './recording_sink.js';
import { testRecoveryRuntime } from './recovery_runtime.js';
import { openTestStoreFile, type TestStoreFile } from './store_file.js';
import { useTempDir } from './temp_dir.js';
import { ToolTarget } from './tool_target.js';

/**
 * Real parts for the conversation tests: a store file in a temp dir, the fake LLM and a tool
 * target on 127.0.0.1, a recording sink, and a recovery runtime on its own manual clock.
 */
export interface ConversationHarness {
  readonly fake: FakeLLMServer;
  readonly target: ToolTarget;
  readonly store: TestStoreFile;
  readonly recoveryClock: ManualClock;
  /** What the sink was told, in order. */
  readonly events: SeenEvent[];
  /** Called with each event as it is told; set by a test that waits for one. */
  onEvent: ((event: SeenEvent) => void) | undefined;
  /** The intake's dependencies over these parts; `extraConfig` is YAML added to the tool target's configuration. */
  deps(extraConfig?: string, overrides?: Partial<ConversationDeps>): ConversationDeps;
  /** A console message in channel `c1`, with a fresh id unless given. */
  message(text: string, authorId?: string, messageId?: string): InboundMessage;
  /** The kinds of the notices told so far. */
  notices(): string[];
  /** The texts of the replies delivered so far. */
  replies(): string[];
}

/** A fresh {@link ConversationHarness} for each test of the calling `describe`, closed after it. */
/** Deps as the program wires them when no durable store could open: a store and an operators' view that keep nothing. */
export function withoutDurability(): Pick<ConversationDeps, 'store' | 'operator'> {
  return { store: noTurnStore(), operator: NO_OPERATOR_STORE };
}

export function useConversationHarness(): { readonly current: ConversationHarness } {
  const temp = useTempDir();
  let harness: (ConversationHarness & { close(): Promise<void> }) | undefined;
  beforeEach(async () => {
    harness = await startHarness(temp.path());
  });
  afterEach(async () => {
    await harness?.close();
    harness = undefined;
  });
  return {
    get current() {
      if (harness === undefined) throw new Error('the conversation harness runs only inside a test');
      return harness;
    },
  };
}

async function startHarness(dir: string): Promise<ConversationHarness & { close(): Promise<void> }> {
  const fake = await FakeLLMServer.start();
  const target = await ToolTarget.start();
  const store = openTestStoreFile(dir);
  const events: SeenEvent[] = [];
  let ids = 0;
  const harness: ConversationHarness & { close(): Promise<void> } = {
    fake,
    target,
    store,
    recoveryClock: new ManualClock(),
    events,
    onEvent: undefined,
    deps(extraConfig = '', overrides = {}) {
      const config = targetToolsConfig(target.url, extraConfig);
      return {
        config,
        store: store.turns,
        operator: store.operator,
        history: store.history,
        models: store.models,
        usage: store.usage,
        provider: testProvider(llmConfig('openai', fake.baseUrl)),
        recovery: testRecoveryRuntime(harness.recoveryClock),
        catalog: () => deriveCatalog(config.tools, { memory: undefined }),
        clock: store.clock,
        logger: pino({ level: 'silent' }),
        sink: recordingSink(events, (event) => harness.onEvent?.(event)),
        source: consoleMessageSource,
        faults: NO_FAULTS,
        ...overrides,
      };
    },
    message: (text, authorId = 'ada', messageId = `m-${++ids}`) => ({ source: 'console', channelId: 'c1', authorId, authorRoleIds: [], messageId, text }),
    notices: () => events.flatMap((e) => (e.type === 'message' && e.kind === 'notice' ? [e.notice] : [])),
    replies: () => events.flatMap((e) => (e.type === 'message' && e.kind === 'reply' ? [e.text] : [])),
    async close() {
      await store.close();
      await fake.close();
      await target.close();
    },
  };
  return harness;
}
