import { assertNever } from '../core/assert_never.js';
import type { RecoveryRuntime } from '../recovery/generate_with_recovery.js';
import { spanText, wallClockText } from './time_spans.js';

/**
 * What `/status` says about the models and providers (DESIGN §5.2, §5.3): one line per breaker
 * that is not closed (an open one with the wall-clock time it lets a try through) and per
 * subsystem that is not healthy; nothing while all is well.
 */
export function modelHealthLines(recovery: RecoveryRuntime): string[] {
  const now = recovery.clock.monotonicNow();
  const lines: string[] = [];
  for (const breaker of recovery.breakers.snapshots()) {
    switch (breaker.state) {
      case 'closed':
        break;
      case 'open': {
        const inMs = Math.max(0, (breaker.nextProbeAtMs ?? now) - now);
        lines.push(`The model ${breaker.key} is overloaded; it is tried again at ${wallClockText(recovery.clock.now() + inMs)} (in ${spanText(inMs)}).`);
        break;
      }
      case 'half_open':
        lines.push(`The model ${breaker.key} is recovering from an overload; ${breaker.probeInFlight ? 'a test request is under way' : 'the next request tests it'}.`);
        break;
      default:
        return assertNever(breaker.state);
    }
  }
  for (const subsystem of recovery.guard.snapshots()) {
    if (subsystem.status === 'healthy') continue;
    lines.push(`${subsystem.name} is ${subsystem.status === 'degraded' ? 'degraded (overloaded or its breaker is open)' : `unavailable after ${subsystem.consecutiveFailures} failures in a row`}.`);
  }
  return lines;
}
