import type { Config } from './config_schema.js';
import type { Clock } from '../core/clock.js';
import type { Logger } from '../core/logger.js';
import { redactingSink } from '../conversation/notices/redacting_sink.js';
import type { Transport } from '../conversation/transport.js';
import type { FaultInjector } from '../engine/fault_points.js';
import type { RecoveryRuntime } from '../recovery/generate_with_recovery.js';
import { routeBreakers } from '../recovery/model_route.js';
import { watchRouteHealth } from '../recovery/route_health.js';
import { modelsAt, type ConfiguredModels } from '../conversation/channel_overrides.js';
import { intakeFor, type BotServices } from './bot_services.js';
import { keepHouse } from './housekeeping.js';
import { tellReclaimed } from './interrupted_notices.js';
import { catchUpAfterRestart } from './restart_catch_up.js';
import { VERDICT_WATCH_INTERVAL_MS, watchVerdicts } from './verdict_watch.js';

export interface BotRun {
  readonly config: Config;
  readonly services: BotServices;
  readonly clock: Clock;
  readonly logger: Logger;
  /** Aborted by SIGINT or SIGTERM: the bot shuts down. */
  readonly stop: AbortSignal;
  readonly faults: FaultInjector;
}

/**
 * Runs the bot on one transport, the same way for every transport: connect, hand its commands
 * to the conversation, keep house, catch up on what the last process left unsaid, interrupted
 * (continued by itself with `turn_state.continue_after_restart`) and queued unanswered (before anything new), tell verdicts recorded anywhere within seconds, show
 * whether the models are overloaded where the transport can (Discord's presence), and run until
 * the input ends (then the queued turns finish or suspend) or SIGINT/SIGTERM arrives (then
 * intake stops and running turns are suspended with reason `shutdown`, their work kept).
 * @throws whatever `transport.connect()` throws (a refused Discord login, one that could not reach
 * Discord in time, or the stop's reason when the bot was stopped while it waited for Discord).
 */
export async function runBot(transport: Transport, run: BotRun): Promise<void> {
  const { config, services, clock, logger } = run;
  const signalled = new Promise<'signal'>((resolve) => {
    if (run.stop.aborted) resolve('signal');
    run.stop.addEventListener('abort', () => resolve('signal'), { once: true });
  });
  const connected = await transport.connect();
  const { messages } = connected;
  const sink = redactingSink(connected.sink, services.secrets);
  const intake = intakeFor(config, services, { clock, logger, sink, source: messages, faults: run.faults, served: transport });
  const announce = async (reclaimed: readonly string[] = []): Promise<void> => {
    await tellReclaimed(services.store, sink, transport.source, reclaimed, logger);
    await intake.announceResolutions(transport.source).catch((error: unknown) => logger.error({ err: error }, 'resolved turns could not be announced: the next housekeeping round tries again'));
  };
  const stopRounds = new AbortController();
  const housekeeping = keepHouse(services.store, clock, config.turn_state.housekeeping_interval_seconds * 1000, stopRounds.signal, announce);
  const continued = await intake.continueAfterRestart(transport);
  const caughtUp = catchUpAfterRestart(services, sink, transport, config.llm.fallback_note, logger, continued);
  await intake.restoreInbox(transport);
  // Verdicts given while the bot was stopped are told at once.
  await announce();
  const verdicts = watchVerdicts(clock, VERDICT_WATCH_INTERVAL_MS, stopRounds.signal, () => intake.announceResolutions(transport.source), logger);
  const health = showRouteHealth(transport, services, stopRounds.signal);
  const ended = await Promise.race([
    transport
      .listen(
        (inbound) => intake.submit(inbound),
        (change) => intake.follow(change),
      )
      .then(() => 'ended' as const),
    signalled,
  ]);
  if (ended === 'signal') {
    logger.info('shutting down: running turns are suspended with their work kept');
    transport.stopInput();
    await intake.shutdown();
  } else {
    await intake.idle();
    await intake.close();
  }
  stopRounds.abort();
  await Promise.all([housekeeping, verdicts, health, caughtUp]);
  await transport.close();
}

/**
 * Shows on `transport`, where it has a place for it, whether every model of the default route
 * (`llm`, then `llm.fallbacks`: the route of a place no override names) is refused by its
 * breaker, at each change until `signal` aborts. Nothing without a model.
 */
export async function showRouteHealth(transport: Transport, services: ConfiguredModels & { readonly recovery: RecoveryRuntime }, signal: AbortSignal): Promise<void> {
  const route = modelsAt(services, undefined);
  if (route === undefined || transport.showHealth === undefined) return;
  await watchRouteHealth(routeBreakers(route, services.recovery.breakers), services.recovery.clock, signal, (health) => transport.showHealth?.(health));
}
