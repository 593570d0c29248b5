import { describe, expect, it } from 'vitest';
import type { Message } from '../../src/llm/protocol.js';
import { assertToolPairs, isToolPairError, ToolPairError, validateToolPairs } from '../../src/llm/tool_pairs.js';

const user = (text: string): Message => ({ role: 'user', content: [{ type: 'text', text }] });
const calls = (...ids: string[]): Message => ({
  role: 'assistant',
  content: [{ type: 'text', text: 'checking' }, ...ids.map((id) => ({ type: 'tool_use' as const, id, name: 'lookup', input: {} }))],
});
const results = (...ids: string[]): Message => ({ role: 'tool', content: ids.map((id) => ({ type: 'tool_result' as const, toolUseId: id, content: 'ok', isError: false })) });

describe('validateToolPairs', () => {
  it('accepts a transcript where every call is answered once before the next model turn', () => {
    const transcript = [user('hi'), calls('a', 'b'), results('b'), results('a'), calls('a'), results('a'), { role: 'assistant', content: [{ type: 'text', text: 'done' }] } satisfies Message];
    expect(validateToolPairs(transcript)).toEqual([]);
    expect(() => assertToolPairs(transcript)).not.toThrow();
  });

  it('reports a call left unanswered, whether more model turns follow or the transcript ends', () => {
    expect(validateToolPairs([user('hi'), calls('a', 'b'), results('a'), calls('c')])).toEqual([
      { kind: 'unanswered', toolUseId: 'b', messageIndex: 1 },
      { kind: 'unanswered', toolUseId: 'c', messageIndex: 3 },
    ]);
  });

  it('reports results that answer nothing open, twice-answered calls, and results before their call', () => {
    expect(validateToolPairs([results('x'), calls('a'), results('a', 'a'), calls('b'), results('a', 'b')])).toEqual([
      { kind: 'orphan_result', toolUseId: 'x', messageIndex: 0 },
      { kind: 'duplicate_result', toolUseId: 'a', messageIndex: 2 },
      { kind: 'orphan_result', toolUseId: 'a', messageIndex: 4 },
    ]);
  });

  it('reports empty and repeated call ids within one model turn, and results inside an assistant message', () => {
    const bad: Message = { role: 'assistant', content: [{ type: 'tool_result', toolUseId: 'z', content: '', isError: false }] };
    expect(validateToolPairs([calls('', 'a', 'a'), results('a'), bad])).toEqual([
      { kind: 'empty_use_id', messageIndex: 0 },
      { kind: 'duplicate_use_id', toolUseId: 'a', messageIndex: 0 },
      { kind: 'result_in_assistant_message', toolUseId: 'z', messageIndex: 2 },
    ]);
  });

  it('throws one typed error listing every violation', () => {
    let caught: unknown;
    try {
      assertToolPairs([calls('a', 'b')]);
    } catch (error) {
      caught = error;
    }
    expect(isToolPairError(caught)).toBe(true);
    if (!isToolPairError(caught)) return;
    expect(caught.violations.map((v) => v.kind)).toEqual(['unanswered', 'unanswered']);
    expect(caught.message).toBe('transcript is not tool-pair valid: tool call a (message 0) has no result; tool call b (message 0) has no result');
  });
});

describe('ToolPairError', () => {
  it('describes every kind of violation', () => {
    const error = new ToolPairError([
      { kind: 'unanswered', toolUseId: 'a', messageIndex: 1 },
      { kind: 'orphan_result', toolUseId: 'b', messageIndex: 2 },
      { kind: 'duplicate_result', toolUseId: 'c', messageIndex: 3 },
      { kind: 'duplicate_use_id', toolUseId: 'd', messageIndex: 4 },
      { kind: 'empty_use_id', messageIndex: 5 },
      { kind: 'result_in_assistant_message', toolUseId: 'e', messageIndex: 6 },
    ]);
    expect(error.message).toBe(
      'transcript is not tool-pair valid: tool call a (message 1) has no result; result for b (message 2) answers no open call; ' +
        'tool call c is answered twice (message 3); tool call id d is used twice (message 4); a tool call has an empty id (message 5); ' +
        'result for e sits in an assistant message (message 6)',
    );
    expect(isToolPairError(error)).toBe(true);
    expect(isToolPairError(new Error(error.message))).toBe(false);
  });
});
