import { describe, expect, it } from 'vitest';
import { marked } from '../../src/core/marked.js';

const SAMPLE = marked<SampleError>('SampleError');

class SampleError extends Error {
  override readonly name = 'SampleError';
  constructor() {
    super('sample');
    SAMPLE.mark(this);
  }
}

describe('marked', () => {
  it('recognises the instances it marked', () => {
    expect(SAMPLE.is(new SampleError())).toBe(true);
  });

  it('recognises an instance marked by a second copy with the same name', () => {
    const copy = marked<Error>('SampleError');
    const foreign = new Error('from another copy');
    copy.mark(foreign);
    expect(SAMPLE.is(foreign)).toBe(true);
    expect(Object.assign(new Error('x'), { [Symbol.for('holdfast.SampleError')]: true })).toSatisfy(SAMPLE.is);
  });

  it('refuses plain errors, other brands and non-objects', () => {
    const other = marked<Error>('OtherError');
    const error = new Error('other');
    other.mark(error);
    expect(SAMPLE.is(error)).toBe(false);
    expect(SAMPLE.is(new Error('plain'))).toBe(false);
    expect(SAMPLE.is(null)).toBe(false);
    expect(SAMPLE.is('SampleError')).toBe(false);
  });

  it('keeps the brand out of enumeration', () => {
    const error = new SampleError();
    expect(Object.getOwnPropertySymbols(error)).toEqual([Symbol.for('holdfast.SampleError')]);
    expect(Object.getOwnPropertyDescriptor(error, Symbol.for('holdfast.SampleError'))?.enumerable).toBe(false);
  });
});
