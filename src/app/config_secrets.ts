import type { LoadedConfig } from '../config/load.js';
import type { KeyPath } from '../config/problems.js';
import { SecretValues, type Redactor } from '../core/secret_values.js';
import { isSensitiveKey } from '../core/sensitive_keys.js';
import { scrubText } from '../turn_state/scrub.js';
import type { Config } from './config_schema.js';

/** Header and environment variable names that carry credentials: `Authorization`, `X-Api-Key`, `Cookie`, `GITHUB_TOKEN` … */
const SECRET_HEADER = /auth|token|key|secret|passw|cookie|session|signature|credential/i;

/**
 * Every secret value of the loaded configuration, to be redacted from the logs and the store: the
 * model's API keys, the Discord token, the values of credential headers sent to the model, to the
 * trace collector and by each HTTP tool and MCP server, and of credential variables set for a stdio MCP server (whole,
 * and word by word, so that `Bearer <token>` yields the token), and every
 * value the environment filled into a key with a secret name (`token: ${DISCORD_TOKEN}`,
 * `password: ${DB_PASSWORD}`), and the password of the PostgreSQL URL and of MCP servers' URLs.
 */
export function configuredSecrets({ config, filled }: Pick<LoadedConfig<Config>, 'config' | 'filled'>): SecretValues {
  const mcp = config.tools.mcp.flatMap((server) => [server.headers ?? {}, server.env ?? {}]);
  const headers = [config.llm.headers, config.telemetry.headers, ...config.tools.http.map((tool) => tool.headers), ...mcp].flatMap((set) => Object.entries(set));
  const headerValues = headers.filter(([name]) => SECRET_HEADER.test(name)).flatMap(([, value]) => [value, ...value.split(/\s+/)]);
  const fromEnvironment = filled.filter((string) => isSensitiveKey(nearestKey(string.path))).flatMap((string) => string.variables.map((variable) => variable.value));
  const keys = [config.llm.api_key, ...(config.llm.api_keys ?? []), config.discord.token, config.web.token].filter((key): key is string => key !== undefined);
  const urls = [config.turn_state.postgres?.url, ...config.tools.mcp.map((server) => server.url)].filter((url): url is string => url !== undefined);
  return SecretValues.of([...keys, ...headerValues, ...fromEnvironment, ...urls.flatMap(urlPassword)]);
}

/**
 * What the logger redacts: the configured secrets, and then token-shaped strings (`Bearer …`,
 * `token=…`, `sk-…`, `ghp_…`), as the store scrubs tool arguments, results and errors — a tool's
 * error body can quote them.
 */
export function logRedactor(secrets: SecretValues): Redactor {
  return { redact: (text) => scrubText(secrets.redact(text)) };
}

/** The password of a connection URL (validated as one), as written (percent-encoded) and as sent; none when it has none. */
function urlPassword(url: string): string[] {
  const password = new URL(url).password;
  if (password === '') return [];
  try {
    return [password, decodeURIComponent(password)];
  } catch {
    return [password];
  }
}

/** The name of the key a value sits under: for an item of a list, the list's. */
function nearestKey(path: KeyPath): string {
  return path.findLast((segment): segment is string => typeof segment === 'string') ?? '';
}
