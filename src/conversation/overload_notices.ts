import type { Clock } from '../core/clock.js';

/** A monotonic instant of `clock` (`undefined`: now) as the wall-clock time people read: `14:05 UTC`. */
export function clockTime(clock: Clock, monotonicMs: number | undefined): string {
  const wall = new Date(clock.now() + Math.max(0, (monotonicMs ?? clock.monotonicNow()) - clock.monotonicNow()));
  const two = (n: number): string => String(n).padStart(2, '0');
  return `${two(wall.getUTCHours())}:${two(wall.getUTCMinutes())} UTC`;
}

/**
 * What a requester's `resume` is told while another request is trying the overloaded model
 * (DESIGN §9): when the next try is, by the bot itself when `automatic`, else by them.
 */
export function probeInFlightNotice(clock: Clock, retryAtMs: number | undefined, automatic: boolean): string {
  const at = clockTime(clock, retryAtMs);
  const what = 'The model provider is still overloaded, and another request is trying it right now.';
  return automatic
    ? `${what} Your request is saved: I will try again at ${at} (sooner if the provider recovers), or type \`resume\` after that.`
    : `${what} Your request is saved: type \`resume\` again after ${at}.`;
}

/** The new text of a turn's suspended notice once an automatic try found the model still overloaded: when it tried, and when it tries next. */
export function stillOverloadedNotice(clock: Clock, retryAtMs: number | undefined): string {
  return (
    `The model provider was still overloaded at ${clockTime(clock, undefined)}. Your request and the work done so far are saved: ` +
    `I will try again by myself at ${clockTime(clock, retryAtMs)}, or type \`resume\` to try now.`
  );
}
