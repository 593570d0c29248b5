import type { TargetRequest } from '../tool_target.js';
import type { TurnRecord } from './turn_records.js';

/** How every message sent under load ended, and the two counts that must be zero. */
export interface LoadOutcomes {
  readonly sent: number;
  /** Messages whose whole reply became visible. */
  readonly replied: number;
  /** Of those, the ones told first that their request was saved: resumed after a suspension. */
  readonly resumed: number;
  /** Messages answered by a notice and never by a reply. */
  readonly toldOnly: number;
  /** Messages that got neither a reply nor a notice. */
  readonly lost: readonly string[];
  /** Write tokens the tool target saw more than once: a write tool call executed twice. */
  readonly executedTwice: readonly string[];
}

/** The token of a `write` tool call the target received, if the request is one. */
function writtenToken(request: TargetRequest): string | undefined {
  if (request.method !== 'POST' || !request.path.startsWith('/write')) return undefined;
  try {
    const token = (JSON.parse(request.body) as { token?: unknown }).token;
    return typeof token === 'string' ? token : undefined;
  } catch {
    return undefined;
  }
}

/** The write tokens the target saw more than once, each once. */
export function tokensWrittenTwice(requests: readonly TargetRequest[]): string[] {
  const seen = new Map<string, number>();
  for (const token of requests.map(writtenToken)) if (token !== undefined) seen.set(token, (seen.get(token) ?? 0) + 1);
  return [...seen].filter(([, count]) => count > 1).map(([token]) => token);
}

/** The outcomes of every recorded message, against what the tool target received. */
export function loadOutcomes(turns: readonly TurnRecord[], targetRequests: readonly TargetRequest[]): LoadOutcomes {
  const replied = turns.filter((turn) => turn.finalAt !== undefined);
  return {
    sent: turns.length,
    replied: replied.length,
    resumed: replied.filter((turn) => turn.saved).length,
    toldOnly: turns.filter((turn) => turn.finalAt === undefined && turn.noticeAt !== undefined).length,
    lost: turns.filter((turn) => turn.finalAt === undefined && turn.noticeAt === undefined).map((turn) => turn.token),
    executedTwice: tokensWrittenTwice(targetRequests),
  };
}
