import { parseConfigText } from '../../src/app/config_schema.js';
import { formatConfigProblem, isConfigError } from '../../src/config/problems.js';

/** The lines the program would print for configuration YAML `text` (as `c.yml`); none when it is valid. */
export function configProblems(text: string, env: Record<string, string> = {}): string[] {
  try {
    parseConfigText(text, 'c.yml', env);
  } catch (error) {
    if (isConfigError(error)) return error.problems.map(formatConfigProblem);
    throw error;
  }
  return [];
}
