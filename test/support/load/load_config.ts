/**
 * The bot's configuration under load: the local Discord, the self-answering model, the `read` and
 * `write` HTTP tools on the tool target, metrics on a free port, and the store in a temp dir or on
 * PostgreSQL.
 */

/** Where the turn store lives under load. */
export type LoadStore = { readonly backend: 'sqlite'; readonly dbPath: string } | { readonly backend: 'postgres'; readonly url: string; readonly schema: string };

/** How the storm's model recovery is tuned: short enough that an overload suspends turns within the run. */
export interface LoadRecovery {
  readonly deadlineSeconds: number;
  readonly backoffBaseSeconds: number;
  readonly backoffCapSeconds: number;
  readonly cooldownBaseSeconds: number;
  readonly cooldownCapSeconds: number;
}

/** What the configuration points at and how it is tuned. */
export interface LoadConfigParts {
  readonly discordRestUrl: string;
  readonly discordToken: string;
  readonly llmBaseUrl: string;
  readonly toolTargetUrl: string;
  readonly store: LoadStore;
  readonly autoResume: boolean;
  readonly recovery: LoadRecovery;
  /** `discord.requests_per_second`: Discord's global limit for the bot, 50 unless raised. */
  readonly discordRequestsPerSecond: number;
}

function storeYaml(store: LoadStore): string {
  switch (store.backend) {
    case 'sqlite':
      return `  db_path: ${JSON.stringify(store.dbPath)}\n`;
    case 'postgres':
      return `  backend: postgres\n  postgres: { url: ${JSON.stringify(store.url)}, schema: ${store.schema} }\n`;
    default: {
      const unreachable: never = store;
      throw new Error(`unknown store ${JSON.stringify(unreachable)}`);
    }
  }
}

/** The config.yml of a bot under load. */
export function loadConfigYaml(parts: LoadConfigParts): string {
  const { recovery } = parts;
  return `discord:
  token: ${parts.discordToken}
  api_url: ${parts.discordRestUrl}
  requests_per_second: ${parts.discordRequestsPerSecond}
llm:
  base_url: ${parts.llmBaseUrl}
  model: test-model
llm_recovery:
  generation_deadline_seconds: ${recovery.deadlineSeconds}
  backoff_base_seconds: ${recovery.backoffBaseSeconds}
  backoff_cap_seconds: ${recovery.backoffCapSeconds}
  breaker_cooldown_base_seconds: ${recovery.cooldownBaseSeconds}
  breaker_cooldown_cap_seconds: ${recovery.cooldownCapSeconds}
logging:
  level: info
  format: json
metrics:
  listen: 127.0.0.1:0
tools:
  builtin: []
  http:
    - name: read
      description: Reads what is known about a conversation.
      method: GET
      url: ${parts.toolTargetUrl}/read
      effect: read
      parameters: { type: object, properties: { token: { type: string } }, required: [token] }
    - name: write
      description: Writes a note about a conversation.
      method: POST
      url: ${parts.toolTargetUrl}/write
      effect: write
      parameters: { type: object, properties: { token: { type: string }, text: { type: string } }, required: [token, text] }
turn_state:
  auto_resume: ${parts.autoResume}
${storeYaml(parts.store)}`;
}
