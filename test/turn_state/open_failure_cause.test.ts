import { describe, expect, it } from 'vitest';
import { causeOf } from '../../src/turn_state/errors.js';

describe('the cause of a store file that could not be used, as one log field', () => {
  it('gives the message with SQLite’s code once, and the text of anything thrown that is not an Error', () => {
    const busy = Object.assign(new Error('database is locked'), { code: 'SQLITE_BUSY' });
    const named = Object.assign(new Error('SQLITE_CORRUPT: database disk image is malformed'), { code: 'SQLITE_CORRUPT' });
    expect(causeOf(busy)).toBe('database is locked (SQLITE_BUSY)');
    expect(causeOf(named)).toBe('SQLITE_CORRUPT: database disk image is malformed');
    expect(causeOf('no such file')).toBe('no such file');
  });
});
