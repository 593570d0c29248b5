import { describe, expect, it } from 'vitest';
import { ResponseAssembler } from '../../src/llm/assembler.js';

const fresh = (): ResponseAssembler => new ResponseAssembler({ provider: 'openai', model: 'configured-model' });

describe('ResponseAssembler', () => {
  it('joins text deltas into one block per run of text and announces each delta', () => {
    const a = fresh();
    a.addText('Hel');
    a.addText('');
    a.addText('lo');
    expect(a.drainEvents()).toEqual([
      { type: 'text_delta', text: 'Hel' },
      { type: 'text_delta', text: 'lo' },
    ]);
    expect(a.drainEvents()).toEqual([]);
    a.setStopReason('end_turn');
    a.setUsage({ inputTokens: 12 });
    a.setUsage({ outputTokens: 3 });
    a.setProvenance({ model: 'served-model', responseId: 'resp-1' });
    a.setProvenance({ model: '' });
    expect(a.toResponse()).toEqual({
      content: [{ type: 'text', text: 'Hello' }],
      stopReason: 'end_turn',
      usage: { inputTokens: 12, outputTokens: 3 },
      provenance: { provider: 'openai', model: 'served-model', responseId: 'resp-1' },
    });
  });

  it('keeps text and tool calls in the order they arrived, and announces each call once its name is known', () => {
    const a = fresh();
    a.addText('Let me look.');
    a.toolCallDelta('0', { id: 'c-1' });
    a.toolCallDelta('0', { name: 'weather', arguments: '{"city":' });
    a.toolCallDelta('0', { arguments: '"Oslo"}' });
    a.addText('And also:');
    expect(a.drainEvents()).toEqual([
      { type: 'text_delta', text: 'Let me look.' },
      { type: 'tool_call_started', id: 'c-1', name: 'weather' },
      { type: 'text_delta', text: 'And also:' },
    ]);
    expect(a.toResponse().content).toEqual([
      { type: 'text', text: 'Let me look.' },
      { type: 'tool_use', id: 'c-1', name: 'weather', input: { city: 'Oslo' } },
      { type: 'text', text: 'And also:' },
    ]);
  });

  it('starts a new call when a server reuses an index with a new id, and numbers calls that have no id', () => {
    const a = fresh();
    a.toolCallDelta('0', { id: 'first', name: 'a', arguments: '{}' });
    a.toolCallDelta('0', { id: 'second', name: 'b', arguments: '{"x":1}' });
    a.toolCallDelta('1', { name: 'c' });
    a.setStopReason('end_turn');
    const response = a.toResponse();
    expect(response.content).toEqual([
      { type: 'tool_use', id: 'first', name: 'a', input: {} },
      { type: 'tool_use', id: 'second', name: 'b', input: { x: 1 } },
      { type: 'tool_use', id: 'call_3', name: 'c', input: {} },
    ]);
    expect(response.stopReason).toBe('tool_use');
  });

  it('takes complete arguments over the fragments when a protocol resends them whole', () => {
    const a = fresh();
    a.toolCallDelta('item', { id: 'c', name: 'n', arguments: '{"a":' });
    a.toolCallArguments('item', '{"a":2}');
    expect(a.toResponse().content).toEqual([{ type: 'tool_use', id: 'c', name: 'n', input: { a: 2 } }]);
  });

  it('reports each piece of data to onData — text, reasoning, tool-call fragments, usage, the finish — but not provenance or empty pieces', () => {
    const seen: string[] = [];
    let label = '';
    const a = new ResponseAssembler({ provider: 'openai', model: 'configured-model' }, () => seen.push(label));
    const feed = (name: string, step: () => void): void => {
      label = name;
      step();
    };
    feed('provenance', () => a.setProvenance({ model: 'served-model', responseId: 'r' }));
    feed('empty text', () => a.addText(''));
    feed('empty reasoning', () => a.addReasoning(''));
    feed('empty call fragment', () => a.toolCallDelta('0', { arguments: '' }));
    feed('no usage', () => a.setUsage({}));
    feed('text', () => a.addText('Hi'));
    feed('reasoning', () => a.addReasoning('hmm'));
    feed('call fragment', () => a.toolCallDelta('0', { name: 'n', arguments: '{' }));
    feed('complete arguments', () => a.toolCallArguments('0', '{}'));
    feed('usage', () => a.setUsage({ outputTokens: 3 }));
    feed('finish', () => a.setStopReason('tool_use'));
    expect(seen).toEqual(['text', 'reasoning', 'call fragment', 'complete arguments', 'usage', 'finish']);
  });

  it('keeps arguments nested deeper than 100 levels as malformed, unparsed, so that nothing walks them', () => {
    const a = fresh();
    const deep = `${'{"a":'.repeat(10_000)}1${'}'.repeat(10_000)}`;
    const fits = `${'{"a":'.repeat(100)}1${'}'.repeat(100)}`;
    a.toolCallDelta('0', { id: 'deep', name: 'n', arguments: deep });
    a.toolCallDelta('1', { id: 'fits', name: 'n', arguments: fits });
    expect(a.toResponse().content).toEqual([
      { type: 'tool_use', id: 'deep', name: 'n', input: {}, malformedInput: { raw: deep, reason: 'the arguments nest deeper than 100 levels' } },
      { type: 'tool_use', id: 'fits', name: 'n', input: JSON.parse(fits) as unknown },
    ]);
  });

  it('keeps malformed arguments with the reason instead of failing the response, and keeps max_tokens', () => {
    const a = fresh();
    a.toolCallDelta('0', { id: 'bad', name: 'n', arguments: '{"a": tru' });
    a.toolCallDelta('1', { id: 'list', name: 'n', arguments: '[1,2]' });
    a.setStopReason('max_tokens');
    const response = a.toResponse();
    expect(response.stopReason).toBe('max_tokens');
    expect(response.content).toEqual([
      { type: 'tool_use', id: 'bad', name: 'n', input: {}, malformedInput: { raw: '{"a": tru', reason: expect.stringMatching(/^the arguments are not valid JSON \(/) as unknown } },
      { type: 'tool_use', id: 'list', name: 'n', input: {}, malformedInput: { raw: '[1,2]', reason: 'the arguments are not a JSON object' } },
    ]);
  });

  it('keeps a leading <think> block out of the text it streams and of the response, and tells that the model reasons', () => {
    const a = fresh();
    a.addText('<thi');
    a.addText('nk>plan');
    a.addText('</think>\n\nHel');
    a.addText('lo');
    a.toolCallDelta('0', { id: 'c-1', name: 'weather', arguments: '{}' });
    expect(a.drainEvents()).toEqual([{ type: 'reasoning_delta' }, { type: 'text_delta', text: 'Hel' }, { type: 'text_delta', text: 'lo' }, { type: 'tool_call_started', id: 'c-1', name: 'weather' }]);
    expect(a.toResponse().content).toEqual([
      { type: 'text', text: 'Hello' },
      { type: 'tool_use', id: 'c-1', name: 'weather', input: {} },
    ]);
  });

  it('streams what was held in case it began a tag once the text ends', () => {
    const a = fresh();
    a.addText('<th');
    expect(a.drainEvents()).toEqual([]);
    a.endText();
    expect(a.drainEvents()).toEqual([{ type: 'text_delta', text: '<th' }]);
    expect(a.toResponse().content).toEqual([{ type: 'text', text: '<th' }]);
  });
});
