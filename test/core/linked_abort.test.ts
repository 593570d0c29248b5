import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../support/manual_clock.js';
import { LinkedAbort, RELEASED } from '../../src/core/linked_abort.js';

describe('LinkedAbort', () => {
  it('aborts with its parent, carrying the parent’s reason, and ends a wait on it', async () => {
    const clock = new ManualClock();
    const parent = new AbortController();
    const linked = new LinkedAbort(parent.signal);
    const wait = clock.sleep(60_000, linked.signal);
    const reason = new Error('stopped');
    parent.abort(reason);
    await expect(wait).rejects.toBe(reason);
    expect(clock.pendingSleeps).toBe(0);
  });

  it('is aborted from the start when its parent already was', () => {
    const parent = new AbortController();
    parent.abort('gone');
    expect(new LinkedAbort(parent.signal).signal.reason).toBe('gone');
  });

  it('aborts on its own with the shared released reason, leaving the parent as it was', () => {
    const parent = new AbortController();
    const linked = new LinkedAbort(parent.signal);
    linked.abort();
    expect(linked.signal.reason).toBe(RELEASED);
    expect(RELEASED.name).toBe('AbortError');
    expect(parent.signal.aborted).toBe(false);
  });

  it('stops following its parent once released: no listener is left on the parent', () => {
    const parent = new AbortController();
    const linked = new LinkedAbort(parent.signal);
    expect(getEventListeners(parent.signal, 'abort')).toHaveLength(1);
    linked.release();
    expect(getEventListeners(parent.signal, 'abort')).toHaveLength(0);
    expect(linked.signal.reason).toBe(RELEASED);
  });
});
