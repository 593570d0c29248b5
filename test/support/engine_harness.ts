import { pino } from 'pino';
import { afterEach, beforeEach } from 'vitest';
import { parseConfigText, type Config } from '../../src/app/config_schema.js';
import { newChatTurn, turnDefaults, userMessage } from '../../src/conversation/turns/admission.js';
import { initialCheckpoint } from '../../src/engine/fresh_turn.js';
import type { ChatTurn } from '../../src/engine/chat_turn.js';
import { storeDurability, type TurnDurability } from '../../src/engine/durability.js';
import type { TurnEnding } from '../../src/engine/terminal_writer.js';
import { turnLimitText } from '../../src/conversation/notices/limit_texts.js';
import { endingNotice } from '../../src/conversation/notices/texts.js';
import { NO_FAULTS } from '../../src/engine/fault_points.js';
import type { RunDeps } from '../../src/engine/run_turn.js';
import { ManualClock } from './manual_clock.js';
import type { LLMProviderName } from '../../src/llm/llm_settings.js';
import type { LLMProvider } from '../../src/llm/provider.js';
import { deriveCatalog } from '../../src/tools/catalog.js';
import { noTurnStore } from '../../src/turn_state/no_store.js';
import type { TurnStore } from '../../src/turn_state/turn_store.js';
import type { Lease } from '../../src/turn_state/turn_types.js';
import { llmConfig, testProvider } from './fake_llm/provider.js';
import { FakeLLMServer } from './fake_llm/server.js';
import { testRecoveryRuntime } from './recovery_runtime.js';
import { useTempDir } from './temp_dir.js';
import { ToolTarget } from './tool_target.js';
import { admissionFor, openTestStore } from './turn_store.js';

/** An idempotent `charge` tool on the tool target, to append to the `tools.http` list. */
export function chargeToolYaml(targetUrl: string, timeoutSeconds = 30): string {
  return `    - name: charge
      description: Charges a card.
      method: POST
      url: ${targetUrl}/charges
      effect: idempotent
      idempotency_header: Idempotency-Key
      timeout_seconds: ${timeoutSeconds}
      parameters: { type: object, properties: { cents: { type: integer } }, required: [cents] }
`;
}

/** Two HTTP tools on the tool target: `save_note` (a write) and `lookup` (a read). */
export function targetToolsConfig(targetUrl: string, extra = ''): Config {
  return parseConfigText(
    `tools:
  builtin: []
  http:
    - name: save_note
      description: Saves a note.
      method: POST
      url: ${targetUrl}/notes
      effect: write
      timeout_seconds: 5
      parameters: { type: object, properties: { text: { type: string } }, required: [text] }
    - name: lookup
      description: Looks a word up.
      url: ${targetUrl}/lookup/{word}
      effect: read
      timeout_seconds: 5
      parameters: { type: object, properties: { word: { type: string } }, required: [word] }
${extra}`,
    'engine-test.yml',
    {},
  );
}

/** A turn's ending with what its requester reads: the reply, or the words of its notice; nothing for a fenced turn. */
export function told(ending: TurnEnding): { readonly status: TurnEnding['status']; readonly message: string | undefined } {
  if (ending.status === 'TERMINAL_COMPLETED') return { status: ending.status, message: ending.reply };
  if (ending.status === 'untouched') return { status: ending.status, message: undefined };
  if (ending.status === 'AWAITING_APPROVAL') return { status: ending.status, message: ending.asking.map(({ op }) => op.toolName).join(', ') };
  if (ending.status === 'TERMINAL_FAILED' && ending.reason === 'turn_limit') return { status: ending.status, message: turnLimitText(ending.limit, ending.done) };
  return { status: ending.status, message: endingNotice(ending).text };
}

/** Durability as the program wires it when no store could open: the turn's writes keep nothing. */
export function durabilityOff(turnId: string): TurnDurability {
  return storeDurability(noTurnStore(), { turnId, generation: 1, revision: 1, token: turnId, expiresAt: Number.MAX_SAFE_INTEGER });
}

export interface EngineHarness {
  readonly deps: RunDeps;
  /** The clock of recovery waits: tests move it with runToCompletion. Tool timeouts and heartbeats run on the store's clock, which moves only when a test says so. */
  readonly recoveryClock: ManualClock;
  readonly provider: LLMProvider;
  /** Admits a new turn for `text` and builds its ChatTurn. */
  admit(messageId: string, text: string, controller?: AbortController): Promise<{ turn: ChatTurn; lease: Lease; durability: TurnDurability }>;
}

/** The real engine's parts around a real store, the fake model server (speaking `protocol`) and real HTTP tools. */
export function engineHarness(store: TurnStore, clock: ManualClock, fake: FakeLLMServer, config: Config, protocol: LLMProviderName = 'openai'): EngineHarness {
  const provider = testProvider(llmConfig(protocol, fake.baseUrl));
  const catalog = deriveCatalog(config.tools, { memory: undefined });
  const recoveryClock = new ManualClock();
  const deps: RunDeps = { provider, recovery: testRecoveryRuntime(recoveryClock), clock, faults: NO_FAULTS, heartbeatMs: 10_000, approvalTimeoutMs: 3_600_000 };
  return {
    deps,
    recoveryClock,
    provider,
    async admit(messageId, text, controller = new AbortController()) {
      const start = initialCheckpoint(turnDefaults(config, { now: clock.now(), names: undefined }), [userMessage(text, config)]);
      const admission = await store.admit(admissionFor(messageId, undefined, start));
      if (admission.disposition !== 'admitted') throw new Error(`expected admission, got ${admission.disposition}`);
      const parts = {
        turnId: admission.lease.turnId,
        identity: admission.turn.identity,
        requester: { userId: admission.turn.requesterId, roleIds: [] },
        tools: catalog.tools,
        signal: controller.signal,
        logger: pino({ level: 'silent' }),
      };
      const turn = newChatTurn(parts, text, config, { now: clock.now(), names: undefined });
      return { turn, lease: admission.lease, durability: storeDurability(store, admission.lease) };
    },
  };
}

/** The real parts an engine test runs against: the fake model and a tool target on 127.0.0.1, and a store file. */
export interface EngineParts {
  readonly fake: FakeLLMServer;
  readonly target: ToolTarget;
  readonly store: TurnStore;
  /** The store's clock: tool timeouts and heartbeats. */
  readonly clock: ManualClock;
  /** An engine over these parts; `extraConfig` is YAML added to the tool target's configuration. */
  harness(extraConfig?: string): EngineHarness;
}

/** Fresh {@link EngineParts} in a temp dir for each test of the calling `describe`, closed after it. */
export function useEngineParts(): { readonly current: EngineParts } {
  const temp = useTempDir();
  let parts: (EngineParts & { close(): Promise<void> }) | undefined;
  beforeEach(async () => {
    const fake = await FakeLLMServer.start();
    const target = await ToolTarget.start();
    const { store, clock } = openTestStore(temp.path());
    parts = {
      fake,
      target,
      store,
      clock,
      harness: (extraConfig = '') => engineHarness(store, clock, fake, targetToolsConfig(target.url, extraConfig)),
      async close() {
        await store.close();
        await fake.close();
        await target.close();
      },
    };
  });
  afterEach(async () => {
    await parts?.close();
    parts = undefined;
  });
  return {
    get current() {
      if (parts === undefined) throw new Error('the engine parts exist only inside a test');
      return parts;
    },
  };
}
