import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Config, parseConfigText } from '../../src/app/config_schema.js';
import { collectResponse } from '../../src/llm/provider.js';
import { deriveCatalog, toolDefinitions } from '../../src/tools/catalog.js';
import type { MemoryStore } from '../../src/turn_state/memory_store.js';
import { openTestStoreFile, type TestStoreFile } from '../support/store_file.js';
import { permittedTools } from '../../src/tools/permissions.js';
import { chatText } from '../support/fake_llm/openai_chat.js';
import { llmConfig, testProvider } from '../support/fake_llm/provider.js';
import { FakeLLMServer } from '../support/fake_llm/server.js';
import { useTempDir } from '../support/temp_dir.js';

const PARAMETERS = {
  type: 'object',
  properties: { city: { type: 'string', description: 'City name, e.g. Oslo' }, units: { enum: ['metric', 'imperial'] }, days: { type: 'integer', minimum: 1, maximum: 7 } },
  required: ['city'],
  additionalProperties: false,
};

const config = (yaml: string): Config => parseConfigText(yaml, 'c.yml', {});
const WEATHER = `tools:
  builtin: []
  http:
    - name: weather
      description: The forecast for a city.
      url: https://weather.example/forecast/{city}
      effect: read
      parameters: ${JSON.stringify(PARAMETERS)}
    - name: open_ticket
      description: Opens a support ticket.
      method: POST
      url: https://tickets.example/tickets
      effect: write
`;

describe('the tool catalog', () => {
  const temp = useTempDir();
  let file: TestStoreFile | undefined;
  afterEach(() => file?.close());

  it('offers web_fetch, remember and recall by default', () => {
    file = openTestStoreFile(temp.path());
    const memory: MemoryStore = file.memory;
    const catalog = deriveCatalog(config('').tools, { memory });
    expect(catalog.tools.map((t) => [t.name, t.effect])).toEqual([
      ['web_fetch', 'read'],
      ['remember', 'idempotent'],
      ['recall', 'read'],
    ]);
  });

  it('offers only the built-ins enabled, then the HTTP tools in configured order', () => {
    const catalog = deriveCatalog(config(WEATHER.replace('builtin: []', 'builtin: [web_fetch]')).tools, { memory: undefined });
    expect(catalog.tools.map((t) => t.name)).toEqual(['web_fetch', 'weather', 'open_ticket']);
    expect(catalog.get('open_ticket')?.effect).toBe('write');
    expect(catalog.get('nope')).toBeUndefined();
  });

  it('says so when the memory tools are enabled without their store', () => {
    expect(() => deriveCatalog(config('tools: { builtin: [recall] }').tools, { memory: undefined })).toThrow(/memory store is not open/);
  });

  it('says so when MCP servers are configured but were not started', () => {
    expect(() => deriveCatalog(config('tools: { builtin: [], mcp: [{ name: files, command: npx }] }').tools, { memory: undefined })).toThrow(/tools\.mcp names servers but they were not started/);
  });

  it('reflects the configuration it is derived from: a tool removed from it is gone', () => {
    const before = deriveCatalog(config(WEATHER).tools, { memory: undefined });
    const after = deriveCatalog(config(WEATHER.replace(/ {4}- name: open_ticket[\s\S]*$/, '')).tools, { memory: undefined });
    expect(before.tools.map((t) => t.name)).toEqual(['weather', 'open_ticket']);
    expect(after.tools.map((t) => t.name)).toEqual(['weather']);
  });
});

describe('what the model is told', () => {
  let fake: FakeLLMServer;
  beforeEach(async () => {
    fake = await FakeLLMServer.start();
  });
  afterEach(() => fake.close());

  it('receives each permitted tool with its schema exactly as configured, and not the tools the requester may not use', async () => {
    const loaded = config(`${WEATHER}permissions:\n  tools:\n    open_ticket: { allow_roles: ["support"] }\n`);
    const catalog = deriveCatalog(loaded.tools, { memory: undefined });
    const tools = permittedTools(catalog.tools, loaded.permissions, { userId: 'u-1', roleIds: ['member'] }, 'general');
    fake.enqueue(chatText('ok'));
    const provider = testProvider(llmConfig('openai', fake.baseUrl));
    await collectResponse(provider.stream({ messages: [{ role: 'user', content: [{ type: 'text', text: 'weather?' }] }], tools: toolDefinitions(tools) }, { signal: new AbortController().signal }));
    const sent = (fake.requests[0]?.body as { tools: { function: { name: string; parameters: unknown } }[] }).tools;
    expect(sent.map((t) => t.function.name)).toEqual(['weather']);
    expect(sent[0]?.function.parameters).toEqual(PARAMETERS);

    const anthropic = testProvider(llmConfig('anthropic', fake.baseUrl));
    fake.enqueue({ kind: 'reply', status: 400, body: { type: 'error', error: { type: 'invalid_request_error', message: 'stop here' } } });
    await collectResponse(
      anthropic.stream({ messages: [{ role: 'user', content: [{ type: 'text', text: 'weather?' }] }], tools: toolDefinitions(tools) }, { signal: new AbortController().signal }),
    ).catch(() => undefined);
    expect((fake.requests.at(-1)?.body as { tools: { input_schema: unknown }[] }).tools[0]?.input_schema).toEqual(PARAMETERS);
  });
});
