import { describe, expect, it } from 'vitest';
import { configuredSecrets, logRedactor } from '../../src/app/config_secrets.js';
import { loadConfig } from '../../src/app/config_schema.js';
import { REDACTED } from '../../src/core/sensitive_keys.js';
import { useTempDir } from '../support/temp_dir.js';

const ENV = {
  MODEL_KEY_1: 'model-key-one-5c1d',
  MODEL_KEY_2: 'model-key-two-9e8f',
  DISCORD_TOKEN: 'discord-token-77aa',
  WEATHER_TOKEN: 'weather-token-31bc',
  SESSION: 'session-value-0d0d',
  REGION: 'eu-central-region',
};

describe('the secrets of a configuration', () => {
  const temp = useTempDir();

  function secretsOf(text: string) {
    const file = temp.write('config.yml', text);
    return configuredSecrets(loadConfig({ configPath: file, env: ENV, cwd: temp.path() }));
  }

  it('are the model keys, the bot token, credential header values and environment values under secret names, and nothing else', () => {
    const secrets = secretsOf(`llm:
  model: m
  api_keys: ["\${MODEL_KEY_1}", "\${MODEL_KEY_2}"]
  headers: { X-Title: holdfast-bot-title, X-Region: "\${REGION}" }
discord:
  token: \${DISCORD_TOKEN}
tools:
  http:
    - name: weather
      description: d
      url: https://weather.example/{city}
      effect: read
      headers:
        Authorization: Bearer \${WEATHER_TOKEN}
        X-Api-Key: literal-key-in-the-file
        Cookie: sid=\${SESSION}
        Accept: application/json-seq
`);
    const secret = [
      'model-key-one-5c1d',
      'model-key-two-9e8f',
      'discord-token-77aa',
      'weather-token-31bc',
      'Bearer weather-token-31bc',
      'literal-key-in-the-file',
      'sid=session-value-0d0d',
      'session-value-0d0d',
    ];
    for (const value of secret) expect(secrets.redact(`[${value}]`), value).toBe(`[${REDACTED}]`);
    for (const value of ['holdfast-bot-title', 'eu-central-region', 'application/json-seq', 'Bearer']) expect(secrets.redact(value)).toBe(value);
  });

  it('include the credential headers and URL passwords of Streamable HTTP MCP servers and the credential variables set for stdio ones', () => {
    const secrets = secretsOf(`tools:
  mcp:
    - name: github
      command: npx
      env: { GITHUB_PERSONAL_ACCESS_TOKEN: "\${WEATHER_TOKEN}", SLACK_BOT_TOKEN: literal-slack-token-1f1f, LOG_LEVEL: debug-verbose }
    - name: tickets
      url: https://mcp.example/tickets
      headers: { Authorization: Bearer mcp-bearer-2c2c, X-Region: "\${REGION}" }
    - name: wiki
      url: https://bot:wiki-pass-6d6d@wiki.example/mcp
`);
    for (const value of ['weather-token-31bc', 'literal-slack-token-1f1f', 'Bearer mcp-bearer-2c2c', 'mcp-bearer-2c2c', 'wiki-pass-6d6d'])
      expect(secrets.redact(`[${value}]`), value).toBe(`[${REDACTED}]`);
    for (const value of ['debug-verbose', 'eu-central-region']) expect(secrets.redact(value)).toBe(value);
  });

  it('include the password of the PostgreSQL URL, whether written in the file or filled in from the environment', () => {
    const written = secretsOf('turn_state:\n  backend: postgres\n  postgres:\n    url: postgres://bot:pg-pass-4e4e@db.internal:5432/holdfast\n');
    expect(written.redact('password authentication failed, used pg-pass-4e4e')).toBe(`password authentication failed, used ${REDACTED}`);
    expect(written.redact('db.internal:5432')).toBe('db.internal:5432');
    const filled = configuredSecrets(
      loadConfig({
        configPath: temp.write('config.yml', 'turn_state:\n  backend: postgres\n  postgres:\n    url: ${DATABASE_URL}\n'),
        env: { DATABASE_URL: 'postgresql://bot:p%40ss-from-env-9a9a@db.internal/holdfast' },
        cwd: temp.path(),
      }),
    );
    expect(filled.redact('p@ss-from-env-9a9a and p%40ss-from-env-9a9a')).toBe(`${REDACTED} and ${REDACTED}`);
  });

  it('keep a PostgreSQL password whose percent-encoding is broken as written', () => {
    const broken = secretsOf('turn_state:\n  backend: postgres\n  postgres:\n    url: postgres://bot:pass-100%zz-7b7b@db.internal/holdfast\n');
    expect(broken.redact('used pass-100%zz-7b7b')).toBe(`used ${REDACTED}`);
  });

  it('leave out values too short to tell from ordinary words', () => {
    expect(secretsOf('llm:\n  model: m\n  api_key: abc\n').size).toBe(0);
  });

  it('are redacted from the log together with token-shaped strings', () => {
    const redactor = logRedactor(secretsOf('discord:\n  token: ${DISCORD_TOKEN}\n'));
    expect(redactor.redact('login with discord-token-77aa failed; invalid token=zz-9f8e7d6c')).toBe(`login with ${REDACTED} failed; invalid token=${REDACTED}`);
  });
});
