import { describe, expect, it } from 'vitest';
import { jsonTextDepth, MAX_JSON_DEPTH, NESTED_TOO_DEEP, nestsDeeperThan } from '../../src/core/json_bounds.js';
import { SecretValues } from '../../src/core/secret_values.js';
import { REDACTED, redactSensitiveKeys } from '../../src/core/sensitive_keys.js';
import { callFingerprint } from '../../src/turn_state/call_fingerprint.js';

/** JSON text of arrays nested `depth` levels deep around `inner`. */
const nested = (depth: number, inner = '1'): string => `${'['.repeat(depth)}${inner}${']'.repeat(depth)}`;

/** A value of objects nested `depth` levels deep, with `leaf` at the bottom. */
function deepValue(depth: number, leaf: unknown): unknown {
  let value = leaf;
  for (let level = 0; level < depth; level++) value = { a: value };
  return value;
}

describe('the bound on walks over untrusted JSON (DESIGN §9.3)', () => {
  it('measures how deep JSON text nests from its brackets, without parsing it, ignoring brackets inside strings', () => {
    expect(jsonTextDepth('{"a":[1,{"b":2}],"c":{}}')).toBe(3);
    expect(jsonTextDepth('"[[[[" and {"k":"]]]\\"[["}')).toBe(1);
    expect(jsonTextDepth('no brackets at all')).toBe(0);
    expect(jsonTextDepth(']]] [')).toBe(1);
  });

  it('stops counting past the bound, so text 10,000 levels deep costs no more than 101 levels', () => {
    expect(jsonTextDepth(nested(MAX_JSON_DEPTH))).toBe(MAX_JSON_DEPTH);
    expect(jsonTextDepth(nested(10_000))).toBe(MAX_JSON_DEPTH + 1);
    expect(jsonTextDepth(nested(10_000), 5)).toBe(6);
  });

  it('finds a value nested deeper than a bound without recursion, however deep it is', () => {
    expect(nestsDeeperThan({ a: [[[]]] }, 4)).toBe(false);
    expect(nestsDeeperThan({ a: [[[]]] }, 3)).toBe(true);
    expect(nestsDeeperThan('text')).toBe(false);
    expect(nestsDeeperThan(JSON.parse(nested(10_000)))).toBe(true);
    expect(nestsDeeperThan(JSON.parse(nested(MAX_JSON_DEPTH)))).toBe(false);
  });

  it('redacts by key and by value down to the bound (the outer object is its first level), and puts a marker below it instead of overflowing the stack', () => {
    const deep = deepValue(10_000, { token: 'abc' });
    const keyed = redactSensitiveKeys({ shallow: { token: 'abc' }, deep }) as { shallow: unknown; deep: unknown };
    expect(keyed.shallow).toEqual({ token: REDACTED });
    expect(JSON.stringify(keyed.deep)).toBe(JSON.stringify(deepValue(MAX_JSON_DEPTH - 1, NESTED_TOO_DEEP)));

    const secrets = SecretValues.of(['opaque-key-4f9a2c71']);
    const valued = secrets.redactDeep({ shallow: 'opaque-key-4f9a2c71', deep: deepValue(10_000, 'opaque-key-4f9a2c71') });
    expect(valued.shallow).toBe(REDACTED);
    expect(JSON.stringify(valued.deep)).toBe(JSON.stringify(deepValue(MAX_JSON_DEPTH - 1, NESTED_TOO_DEEP)));
  });

  it('fingerprints a call whose input nests deeper than the bound, equal inputs alike, without overflowing the stack', () => {
    const deep = deepValue(10_000, 1);
    expect(callFingerprint('lookup', deep)).toBe(callFingerprint('lookup', deepValue(10_000, 1)));
    expect(callFingerprint('lookup', deep)).not.toBe(callFingerprint('lookup', { a: 1 }));
    expect(callFingerprint('lookup', { b: 2, a: 1 })).toBe(callFingerprint('lookup', { a: 1, b: 2 }));
  });
});
