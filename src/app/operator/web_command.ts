import type { Clock } from '../../core/clock.js';
import { RandomIds } from '../../core/ids.js';
import type { Logger } from '../../core/logger.js';
import type { OperatorStore } from '../../turn_state/operator_store.js';
import { EXIT, type ExitStatus } from '../exit_status.js';
import { isListenError } from '../http_listener.js';
import type { SignalSource } from '../run.js';
import { startWebConsole } from '../web/web_server.js';
import type { WebSettings } from '../web/web_settings.js';

/** What `holdfast web` serves from. */
export interface WebCommandDeps {
  /** The store, opened beside the running bots. */
  readonly operator: OperatorStore;
  readonly web: WebSettings;
  readonly clock: Clock;
  readonly logger: Logger;
  /** The process, for SIGINT and SIGTERM; absent, it serves as long as the process runs. */
  readonly signals: SignalSource | undefined;
  /** Where a refusal goes, one line prefixed `holdfast: `. */
  readonly err: (text: string) => void;
}

/**
 * `holdfast web`: serves the operators' console (DESIGN §10.2) at `web.listen` over the store,
 * without a bot, until SIGINT or SIGTERM, then stops listening; the caller closes the store.
 * Refused with status 2 when `web.listen` is not set or cannot be listened at.
 */
export async function webCommand(deps: WebCommandDeps): Promise<ExitStatus> {
  const { listen, token } = deps.web;
  if (listen === undefined) {
    deps.err('holdfast: web.listen is not set in the configuration: there is nothing to serve\n');
    return EXIT.usage;
  }
  const stopped = new Promise<void>((resolve) => {
    deps.signals?.once('SIGINT', resolve);
    deps.signals?.once('SIGTERM', resolve);
  });
  let served;
  try {
    served = await startWebConsole(listen, { operator: deps.operator, token, clock: deps.clock, ids: new RandomIds(), logger: deps.logger });
  } catch (error) {
    if (!isListenError(error)) throw error;
    deps.err(`holdfast: ${error.message}\n`);
    return EXIT.usage;
  }
  await stopped;
  await served.close();
  return EXIT.ok;
}
