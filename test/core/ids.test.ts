import { describe, expect, it } from 'vitest';
import { RandomIds } from '../../src/core/ids.js';
import { SequentialIds } from '../support/sequential_ids.js';

describe('IdFactory', () => {
  it('gives predictable, distinct ids from the sequential factory', () => {
    const ids = new SequentialIds('lease');
    expect([ids.newId(), ids.newId(), ids.newId()]).toEqual(['lease-1', 'lease-2', 'lease-3']);
    expect(new SequentialIds().newId()).toBe('id-1');
  });

  it('gives distinct version-4 UUIDs from the random factory', () => {
    const ids = new RandomIds();
    const made = new Set(Array.from({ length: 100 }, () => ids.newId()));
    expect(made.size).toBe(100);
    for (const id of made) expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });
});
