import { assertNever } from '../../core/assert_never.js';
import type { BreakerSnapshot } from '../../recovery/capacity_breaker.js';
import type { RecoveryRuntime } from '../../recovery/generate_with_recovery.js';
import { routeBreakers, type ModelRoute } from '../../recovery/model_route.js';
import { spanText, TEXTS, wallClockText } from './texts.js';

/**
 * What `/status` says about the models and providers (DESIGN §5.2, §5.3, §5.4). With one model:
 * one line per breaker that is not closed (an open one with the wall-clock time it lets a try
 * through); with fallbacks, every model of `route` in the order they are tried, each with its
 * breaker's state. Then one line per subsystem that is not healthy. Nothing about
 * one model while all is well.
 */
export function modelHealthLines(recovery: RecoveryRuntime, route?: ModelRoute): string[] {
  const lines: string[] = [];
  if (route !== undefined && route.length > 1) {
    lines.push(TEXTS.modelsInOrder);
    for (const breaker of routeBreakers(route, recovery.breakers)) lines.push(`- ${breaker.model} (${breaker.provider}): ${breakerState(breaker.snapshot(), recovery)}.`);
  } else {
    for (const breaker of recovery.breakers.snapshots()) if (breaker.state !== 'closed') lines.push(`The model ${breaker.key} is ${breakerState(breaker, recovery)}.`);
  }
  for (const subsystem of recovery.guard.snapshots()) {
    if (subsystem.status === 'healthy') continue;
    lines.push(`${subsystem.name} is ${subsystem.status === 'degraded' ? 'degraded (overloaded or its breaker is open)' : `unavailable after ${subsystem.consecutiveFailures} failures in a row`}.`);
  }
  return lines;
}

/** A breaker's state in words: `available`, `overloaded; it is tried again at 14:05 UTC (in 3 min)`, or recovering. */
function breakerState(breaker: BreakerSnapshot, recovery: RecoveryRuntime): string {
  const now = recovery.clock.monotonicNow();
  switch (breaker.state) {
    case 'closed':
      return 'available';
    case 'open': {
      const inMs = Math.max(0, (breaker.nextProbeAtMs ?? now) - now);
      return `overloaded; it is tried again at ${wallClockText(recovery.clock.now() + inMs)} (in ${spanText(inMs)})`;
    }
    case 'half_open':
      return `recovering from an overload; ${breaker.probeInFlight ? 'a test request is under way' : 'the next request tests it'}`;
    default:
      return assertNever(breaker.state);
  }
}
