import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

const AMBIENT = `import { randomUUID } from 'node:crypto';
export const stamp = (): number => Date.now() + performance.now() + Math.random();
export const today = (): Date => new Date();
export const id = (): string => randomUUID() + crypto.randomUUID();
export const later = (f: () => void): unknown => setTimeout(f, 10);
export const parsed = (iso: string): Date => new Date(iso);
`;

async function ruleHits(filePath: string): Promise<string[]> {
  // The project's own config, limited to the ban: a file that does not exist has no type information.
  const eslint = new ESLint({
    cwd: new URL('../../', import.meta.url).pathname,
    ruleFilter: ({ ruleId }) => ruleId.startsWith('no-restricted'),
    overrideConfig: { languageOptions: { parserOptions: { projectService: false, project: null } } },
  });
  const [result] = await eslint.lintText(AMBIENT, { filePath });
  return (result?.messages ?? []).map((m) => `${m.line}:${m.ruleId ?? ''}`);
}

describe('the lint ban on ambient time and identity (DESIGN §3)', () => {
  it('flags every ambient clock, random source and timer under src/ outside src/core', async () => {
    expect(await ruleHits('src/engine/probe.ts')).toEqual([
      '1:no-restricted-imports',
      '2:no-restricted-properties',
      '2:no-restricted-properties',
      '2:no-restricted-properties',
      '3:no-restricted-syntax',
      '4:no-restricted-properties',
      '5:no-restricted-globals',
    ]);
  });

  it('lets src/core, where the Clock and IdFactory implementations live, use them', async () => {
    expect(await ruleHits('src/core/probe.ts')).toEqual([]);
  });
});
