import { afterEach, describe, expect, it } from 'vitest';
import type { LoadRecovery } from '../support/load/load_config.js';
import { LoadWorld, type StormPhase } from '../support/load/load_world.js';
import { useTempDir } from '../support/temp_dir.js';

const CHANNELS = 20;
/**
 * Every request overloaded for longer than a generation's deadline, so the first turns are certain to be
 * suspended and to resume by themselves; then half of the next 100 requests, so turns retry and go on.
 */
const STORM: readonly StormPhase[] = [
  { ms: 2_000, share: 1 },
  { requests: 100, share: 0.5 },
];
/** Short enough that a generation in the storm runs out of time, is suspended and resumes by itself. */
const RECOVERY: LoadRecovery = { deadlineSeconds: 1, backoffBaseSeconds: 0.2, backoffCapSeconds: 0.5, cooldownBaseSeconds: 0.5, cooldownCapSeconds: 1 };

// A real process on a loaded 2-core machine: generous bounds that only catch a hang.
describe('an overload storm over 20 channels, on the built program', { timeout: 120_000 }, () => {
  const temp = useTempDir();
  let world: LoadWorld | undefined;
  afterEach(async () => {
    await world?.close(5_000);
    world = undefined;
  });

  it('answers every message with a reply or a notice and runs no write twice', async () => {
    world = await LoadWorld.start({
      dir: temp.path(),
      channels: CHANNELS,
      model: { ttftMs: 0, tokensPerSecond: 0, replyTokens: 5 },
      thinkMinMs: 0,
      thinkMaxMs: 0,
      seed: 7,
      autoResume: true,
      recovery: RECOVERY,
      startDeadlineMs: 30_000,
    });
    world.storm.begin(STORM);
    world.members.start(CHANNELS);
    await world.storm.over;
    await world.members.drain(60_000);

    const outcomes = world.outcomes();
    expect(outcomes.lost).toEqual([]);
    expect(outcomes.executedTwice).toEqual([]);
    expect(outcomes.replied + outcomes.toldOnly).toBe(outcomes.sent);
    expect(outcomes.sent).toBeGreaterThanOrEqual(CHANNELS);
    // The storm did reach the bot: some turn's request was overloaded and the turn went on, and the first turns were suspended and resumed.
    const calls = world.model.calls;
    const retried = calls.filter((call, index) => call.kind === 'overloaded' && calls.slice(index + 1).some((later) => later.token === call.token && later.kind !== 'overloaded'));
    expect(retried.length).toBeGreaterThan(0);
    expect(outcomes.resumed).toBeGreaterThan(0);
  });
});
