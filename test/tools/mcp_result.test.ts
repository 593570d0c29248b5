import { describe, expect, it } from 'vitest';
import { readCallAnswer } from '../../src/tools/mcp/mcp_result.js';

/** An object nested `depth` levels deep. */
function nested(depth: number): Record<string, unknown> {
  let value: Record<string, unknown> = { leaf: true };
  for (let level = 1; level < depth; level++) value = { a: value };
  return value;
}

describe('reading an MCP server’s answer to tools/call', () => {
  it('joins text parts and names every other kind of part in brackets', () => {
    const answer = {
      content: [
        { type: 'text', text: 'First.' },
        { type: 'image', data: 'aGk=', mimeType: 'image/png' },
        { type: 'audio', data: 'aGk=', mimeType: 'audio/wav' },
        { type: 'resource_link', uri: 'file:///notes.txt', name: 'notes' },
        { type: 'resource_link', uri: 'file:///bare.txt', name: '' },
        { type: 'resource', resource: { uri: 'file:///inline.txt', text: 'Inline text.' } },
        { type: 'resource', resource: { uri: 'file:///blob.bin', blob: 'aGk=', mimeType: 'application/octet-stream' } },
        { type: 'resource', resource: { uri: 'file:///untyped.bin', blob: 'aGk=' } },
      ],
    };
    expect(readCallAnswer(answer)).toEqual({
      kind: 'result',
      text: [
        'First.',
        '[image, image/png]',
        '[audio, audio/wav]',
        '[resource link: file:///notes.txt (notes)]',
        '[resource link: file:///bare.txt]',
        'Inline text.',
        '[resource: file:///blob.bin, application/octet-stream]',
        '[resource: file:///untyped.bin]',
      ].join('\n\n'),
    });
  });

  it('gives structured content as JSON when there are no parts, and calls it unreadable when it nests deeper than 100 levels', () => {
    expect(readCallAnswer({ content: [], structuredContent: { temperature: 4 } })).toEqual({ kind: 'result', text: '{"temperature":4}' });
    expect(readCallAnswer({ content: [], structuredContent: nested(100) })).toMatchObject({ kind: 'result' });
    expect(readCallAnswer({ content: [], structuredContent: nested(10_000) })).toEqual({ kind: 'unreadable', problem: 'its structured content nests deeper than 100 levels' });
  });

  it('reads the tool’s own report of a failure, with or without words, and an answer that is no tool result', () => {
    expect(readCallAnswer({ content: [{ type: 'text', text: 'No such ticket.' }], isError: true })).toEqual({ kind: 'tool_error', text: 'No such ticket.' });
    expect(readCallAnswer({ content: [], isError: true })).toEqual({ kind: 'tool_error', text: 'the tool reported an error without saying what it was' });
    expect(readCallAnswer({ content: 'not a list of parts' })).toEqual({ kind: 'unreadable', problem: 'the server’s answer is not a tool result' });
  });
});
