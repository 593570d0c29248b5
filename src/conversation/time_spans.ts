/**
 * A span of time as people say it, rounded down to its largest unit: `37 s`, `5 min`, `23 h`,
 * `3 d`; under a second reads `0 s`.
 */
export function spanText(ms: number): string {
  const seconds = Math.floor(Math.max(0, ms) / 1000);
  if (seconds < 60) return `${seconds} s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  return hours < 48 ? `${hours} h` : `${Math.floor(hours / 24)} d`;
}

/** A wall-clock time of day in UTC, to the second: `14:05:30 UTC`. The bot does not know its readers' time zones. */
export function wallClockText(epochMs: number): string {
  return `${new Date(epochMs).toISOString().slice(11, 19)} UTC`;
}
