import { FAULT_POINTS, NO_FAULTS, type FaultInjector, type FaultPoint } from '../engine/fault_points.js';
import type { Environment } from '../config/interpolate.js';

/**
 * The crash hook for tests that kill the real process (DESIGN §7.3): `HOLDFAST_FAULT=<point>` or
 * `<point>:<occurrence>` makes the process kill itself with SIGKILL when the engine reaches that
 * point, as a power cut would stop it. Unset, the engine gets {@link NO_FAULTS}.
 * @throws {Error} naming the value when it is not a fault point.
 */
export function faultHookFrom(env: Environment, kill: () => void = () => process.kill(process.pid, 'SIGKILL')): FaultInjector {
  const value = env['HOLDFAST_FAULT'];
  if (value === undefined || value === '') return NO_FAULTS;
  const [name, count] = value.split(':');
  const point = FAULT_POINTS.find((candidate) => candidate === name);
  const occurrence = count === undefined ? 1 : Number(count);
  if (point === undefined || !Number.isInteger(occurrence) || occurrence < 1) {
    throw new Error(`HOLDFAST_FAULT=${value} names no fault point; expected one of ${FAULT_POINTS.join(', ')}, optionally followed by :<occurrence>`);
  }
  let seen = 0;
  return {
    reach(reached: FaultPoint) {
      if (reached === point && ++seen === occurrence) kill();
    },
  };
}
