import { describe, expect, it } from 'vitest';
import { assertNever } from '../../src/core/assert_never.js';

type Shape = { readonly kind: 'circle'; readonly r: number } | { readonly kind: 'square'; readonly side: number };

function area(shape: Shape): number {
  switch (shape.kind) {
    case 'circle':
      return 3 * shape.r * shape.r;
    case 'square':
      return shape.side * shape.side;
    default:
      return assertNever(shape);
  }
}

describe('assertNever', () => {
  it('is never reached while the switch covers every case', () => {
    expect(area({ kind: 'square', side: 2 })).toBe(4);
  });

  it('throws, naming the value, when a value the types did not foresee arrives at run time', () => {
    const stray = { kind: 'triangle' } as unknown as Shape;
    expect(() => area(stray)).toThrow('unexpected value {"kind":"triangle"}');
  });

  it('still names values JSON cannot show', () => {
    expect(() => assertNever(undefined as never)).toThrow('unexpected value undefined');
    const circular: Record<string, unknown> = {};
    circular['self'] = circular;
    expect(() => assertNever(circular as never)).toThrow('unexpected value [object Object]');
  });
});
