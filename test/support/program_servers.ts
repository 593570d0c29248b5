import { afterEach, beforeEach } from 'vitest';
import type { BackgroundProgram } from './background_program.js';
import { FakeDiscord } from './fake_discord/server.js';
import { FakeLLMServer } from './fake_llm/server.js';
import { useProgramsKilledAfterEach, type JsonLinesProgram } from './program.js';
import { ToolTarget } from './tool_target.js';

/** The servers a program test talks to, fresh for each test, and the programs to kill after it. */
export interface ProgramServers {
  readonly fake: FakeLLMServer;
  readonly target: ToolTarget;
  /** Registers a started program: it is killed after the test, before its servers close. */
  readonly track: (program: JsonLinesProgram) => JsonLinesProgram;
}

/** The fake model and a tool target on 127.0.0.1 for each test of the calling `describe`, closed after the programs it tracked. */
export function useProgramServers(): { readonly current: ProgramServers } {
  let servers: { fake: FakeLLMServer; target: ToolTarget } | undefined;
  beforeEach(async () => {
    servers = { fake: await FakeLLMServer.start(), target: await ToolTarget.start() };
  });
  afterEach(async () => {
    await servers?.fake.close();
    await servers?.target.close();
    servers = undefined;
  });
  // Registered after the servers' hook, so that it runs first: the programs stop before their servers.
  const track = useProgramsKilledAfterEach();
  return {
    get current() {
      if (servers === undefined) throw new Error('the program servers run only inside a test');
      return { ...servers, track };
    },
  };
}

/** The servers a bot on Discord talks to, fresh for each test, and the programs to kill after it. */
export interface DiscordServers {
  readonly discord: FakeDiscord;
  readonly fake: FakeLLMServer;
  readonly target: ToolTarget;
  /** Registers a started program: it is killed after the test, before its servers close. */
  readonly track: (program: BackgroundProgram) => BackgroundProgram;
}

/** The local Discord (with `guilds` servers), the fake model and a tool target on 127.0.0.1 for each test of the calling `describe`, closed after the programs it tracked. */
export function useDiscordServers(options: { readonly guilds?: number } = {}): { readonly current: DiscordServers } {
  let servers: Omit<DiscordServers, 'track'> | undefined;
  beforeEach(async () => {
    servers = { discord: await FakeDiscord.start(options.guilds === undefined ? {} : { guilds: options.guilds }), fake: await FakeLLMServer.start(), target: await ToolTarget.start() };
  });
  afterEach(async () => {
    await servers?.target.close();
    await servers?.fake.close();
    await servers?.discord.close();
    servers = undefined;
  });
  // Registered after the servers' hook, so that it runs first: the programs stop before their servers.
  const track = useProgramsKilledAfterEach<BackgroundProgram>();
  return {
    get current() {
      if (servers === undefined) throw new Error('the Discord servers run only inside a test');
      return { ...servers, track };
    },
  };
}

/** A configuration on `servers`: the fake model and a `save_note` write tool on the target, then `extra` YAML sections. */
export function noteToolConfig(servers: Pick<ProgramServers, 'fake' | 'target'>, extra = ''): string {
  return `llm:
  base_url: ${servers.fake.baseUrl}
  model: test-model
${noteToolSection(servers.target.url)}${extra}`;
}

/** The `tools` section with one `save_note` write tool on the target at `targetUrl`. */
export function noteToolSection(targetUrl: string): string {
  return `tools:
  builtin: []
  http:
${noteToolItem(targetUrl)}`;
}

/** `save_note`, a write on the target at `targetUrl`, as an item of `tools.http`; given `timeoutSeconds`, it gives up waiting for the target after that long. */
export function noteToolItem(targetUrl: string, timeoutSeconds?: number): string {
  return `    - name: save_note
      description: Saves a note.
      method: POST
      url: ${targetUrl}/notes
      effect: write
${timeoutSeconds === undefined ? '' : `      timeout_seconds: ${timeoutSeconds}\n`}      parameters: { type: object, properties: { text: { type: string } }, required: [text] }
`;
}

/** `lookup`, a read on the target at `targetUrl`, as an item of `tools.http`. */
export function lookupToolItem(targetUrl: string): string {
  return `    - name: lookup
      description: Looks a word up.
      url: ${targetUrl}/lookup/{word}
      effect: read
      parameters: { type: object, properties: { word: { type: string } }, required: [word] }
`;
}

/** The `llm` section of a bot whose first model, `claude-main`, speaks Anthropic at `primaryUrl`, and whose fallback, `local-llama`, the OpenAI-compatible API at `fallbackUrl`. */
export function fallbackLlmSection(primaryUrl: string, fallbackUrl: string): string {
  return `llm:
  provider: anthropic
  base_url: ${primaryUrl}
  api_key: test-key
  model: claude-main
  fallbacks:
    - provider: openai
      base_url: ${fallbackUrl}
      model: local-llama
`;
}
