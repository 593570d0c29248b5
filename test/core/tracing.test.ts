import { describe, expect, it } from 'vitest';
import { NO_TRACER, parseTraceparent, traceparentOf } from '../../src/core/tracing.js';

describe('the W3C traceparent a turn keeps and a tool call carries (DESIGN §10.3)', () => {
  it('reads back what it writes, the sampled flag included', () => {
    const ref = { traceId: '4bf92f3577b34da6a3ce929d0e0e4736', spanId: '00f067aa0ba902b7', sampled: true };
    expect(traceparentOf(ref)).toBe('00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01');
    expect(parseTraceparent(traceparentOf(ref))).toEqual(ref);
    expect(parseTraceparent(traceparentOf({ ...ref, sampled: false }))).toEqual({ ...ref, sampled: false });
  });

  it('refuses anything else: another version, upper case, all-zero ids, a truncated value', () => {
    for (const text of [
      '01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01',
      '00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01',
      '00-00000000000000000000000000000000-00f067aa0ba902b7-01',
      '00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01',
      '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7',
      '',
    ]) {
      expect(parseTraceparent(text)).toBeUndefined();
    }
  });

  it('traces nothing without telemetry: its spans have no place in any trace', () => {
    const span = NO_TRACER.start('holdfast.turn', { attributes: { 'holdfast.channel': 'c-1' } });
    span.event('ledger.running');
    span.end();
    expect(span.ref).toBeUndefined();
  });
});
