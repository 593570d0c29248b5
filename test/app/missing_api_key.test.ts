import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { capturedIo } from '../support/captured_io.js';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../src/app/run.js';
import { useTempDir } from '../support/temp_dir.js';

const EXAMPLE = new URL('../../config.example.yml', import.meta.url);

/** Runs the bot in the console with no input, and returns the log lines it wrote to stderr. */
async function logLines(cwd: string, env: Record<string, string>): Promise<Record<string, unknown>[]> {
  const run = capturedIo(cwd, { env });
  const status = await runCli([], run.io);
  expect(status).toBe(0);
  return run
    .stderr()
    .trimEnd()
    .split('\n')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

const warnings = (lines: readonly Record<string, unknown>[]): unknown[] => lines.filter((line) => line['level'] === 40).map((line) => line['msg']);

describe('the start with the example configuration', () => {
  const temp = useTempDir();

  it('warns at once, naming OPENAI_API_KEY, when the variable is missing and the model is OpenAI’s own API', async () => {
    copyFileSync(EXAMPLE, join(temp.path(), 'config.yml'));
    const lines = await logLines(temp.path(), {});
    expect(warnings(lines)).toEqual([
      'no API key for https://api.openai.com/v1: llm.api_key is empty because the environment variable OPENAI_API_KEY is not set or empty; every request to the model will be refused',
    ]);
    expect(lines.find((line) => line['level'] === 40)).toMatchObject({ base_url: 'https://api.openai.com/v1', unset: ['OPENAI_API_KEY'] });
  });

  it('says nothing when the key is set, or when the model is a local server that needs none', async () => {
    copyFileSync(EXAMPLE, join(temp.path(), 'config.yml'));
    expect(warnings(await logLines(temp.path(), { OPENAI_API_KEY: 'sk-test' }))).toEqual([]);
    temp.write('local.yml', 'llm:\n  base_url: http://localhost:11434/v1\n  model: llama3.1\n');
    expect(warnings(await logLines(temp.path(), { HOLDFAST_CONFIG: 'local.yml' }))).toEqual([]);
  });

  it('names the variable usually meant when no api_key is written at all', async () => {
    temp.write('config.yml', 'llm:\n  provider: anthropic\n  model: claude-sonnet-4-5\n');
    expect(warnings(await logLines(temp.path(), {}))).toEqual([
      'no API key for https://api.anthropic.com/v1: llm.api_key is not set (usually ${ANTHROPIC_API_KEY}); every request to the model will be refused',
    ]);
  });

  it('warns about each fallback model that talks to its provider’s own API without a key, and not about a local one', async () => {
    temp.write(
      'config.yml',
      'llm:\n  base_url: http://localhost:11434/v1\n  model: llama3.1\n  fallbacks:\n    - { provider: openai, ' +
        'base_url: "http://localhost:8000/v1", model: qwen }\n    - { provider: anthropic, api_key: ' +
        '"${ANTHROPIC_API_KEY:-}", model: claude-sonnet-4-5 }\n',
    );
    expect(warnings(await logLines(temp.path(), {}))).toEqual([
      'no API key for https://api.anthropic.com/v1: llm.fallbacks[1].api_key is empty because the environment ' +
        'variable ANTHROPIC_API_KEY is not set or empty; every request to the fallback model claude-sonnet-4-5 will be refused',
    ]);
  });
});
