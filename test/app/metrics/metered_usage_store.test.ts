import { describe, expect, it } from 'vitest';
import { HoldfastMetrics } from '../../../src/app/metrics/holdfast_metrics.js';
import { meteredUsageStore } from '../../../src/app/metrics/metered_usage_store.js';
import { SystemClock } from '../../../src/core/system_clock.js';
import { sampleValue } from '../../support/prometheus_text.js';
import { openTestStoreFile } from '../../support/store_file.js';
import { useTempDir } from '../../support/temp_dir.js';

const ADA = { source: 'discord', userId: 'ada', channelId: 'general', serverId: 'g1' };
const message = (messageId: string) => ({ source: 'discord', channelId: 'general', messageId });

describe('the usage measured for the metrics', () => {
  const temp = useTempDir();

  it('counts the tokens of each recorded call by model and kind, the cost of priced ones, each refusal by scope and limit, and times the writes', async () => {
    const file = openTestStoreFile(temp.path());
    const metrics = new HoldfastMetrics();
    const usage = meteredUsageStore(file.usage, metrics, new SystemClock());
    const limits = [{ scope: 'user' as const, kind: 'turns_per_hour' as const, max: 1 }];

    await usage.admit({ identity: message('m-1'), owner: ADA, limits });
    await usage.record(message('m-1'), 'ada', [
      { model: 'big', inputTokens: 1000, outputTokens: 200, cachedInputTokens: 400, reasoningTokens: 50, cost: 0.012 },
      { model: 'local', inputTokens: null, outputTokens: null, cost: null },
    ]);
    expect((await usage.admit({ identity: message('m-2'), owner: ADA, limits })).kind).toBe('refused');
    await usage.report({ period: { kind: 'today' } });
    const text = await metrics.registry.metrics();

    const tokens = (model: string, kind: string) => sampleValue(text, 'holdfast_tokens_total', { model, kind });
    expect([tokens('big', 'input'), tokens('big', 'cached_input'), tokens('big', 'output'), tokens('big', 'reasoning')]).toEqual([1000, 400, 200, 50]);
    expect(tokens('local', 'input')).toBeUndefined();
    expect(sampleValue(text, 'holdfast_cost_total', { model: 'big' })).toBeCloseTo(0.012, 12);
    expect(sampleValue(text, 'holdfast_cost_total', { model: 'local' })).toBeUndefined();
    expect(sampleValue(text, 'holdfast_limit_refusals_total', { scope: 'user', limit: 'turns_per_hour' })).toBe(1);
    expect(sampleValue(text, 'holdfast_store_write_seconds_count')).toBe(3);
    await file.close();
  });
});
