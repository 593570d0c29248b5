import { describe, expect, it } from 'vitest';
import { approvalNotWaitingText } from '../../src/conversation/notices/approval_texts.js';
import { queuedLineText, runningToolsText, stoppedText, thoughtText } from '../../src/conversation/notices/texts.js';
import type { OpRecord } from '../../src/turn_state/ledger_types.js';

describe('what the bot says in a channel, word for word', () => {
  it('tells what each call that ran on after /stop came to, on one line each, a long result cut', () => {
    expect(stoppedText([])).toBe('Stopped.');
    expect(
      stoppedText([
        { toolName: 'open_ticket', outcome: { kind: 'result', text: 'Ticket T-1\nwas   created' } },
        { toolName: 'charge', outcome: { kind: 'failed', error: 'card declined' } },
        { toolName: 'save_note', outcome: { kind: 'uncertain', error: 'timed out' } },
        { toolName: 'send_mail', outcome: undefined },
      ]),
    ).toBe(
      [
        'Stopped.',
        '`open_ticket` finished before stopping: Ticket T-1 was created',
        '`charge` failed before stopping: card declined',
        '`save_note` ended before stopping, and whether it took effect is not known.',
        '`send_mail` ended before stopping, and whether it took effect is not known.',
      ].join('\n'),
    );
    const long = stoppedText([{ toolName: 'fetch', outcome: { kind: 'result', text: 'x'.repeat(400) } }]).split('\n')[1] ?? '';
    expect(long).toBe(`\`fetch\` finished before stopping: ${'x'.repeat(300)}…`);
  });

  it('quotes the first words of a waiting message, at most 8 words or 60 characters', () => {
    expect(queuedLineText('  thanks  ')).toBe('• “thanks”');
    expect(queuedLineText('one two three four five six seven eight nine')).toBe('• “one two three four five six seven eight…”');
    expect(queuedLineText('a'.repeat(80))).toBe(`• “${'a'.repeat(60)}…”`);
  });

  it('names each running tool once, with how many of its calls run', () => {
    expect(runningToolsText(['open_ticket'])).toBe('running open_ticket…');
    expect(runningToolsText(['lookup', 'weather', 'lookup'])).toBe('running lookup (×2), weather…');
  });

  it('says how long the model thought, a second at least', () => {
    expect(thoughtText(12_400)).toBe('-# thought for 12 s');
    expect(thoughtText(200)).toBe('-# thought for 1 s');
    expect(thoughtText(125_000)).toBe('-# thought for 2 min');
  });

  it('names who answered a request for approval as people read them: a Discord user by mention, an operator by name and where they answered', () => {
    const answered = (by: string): OpRecord => ({
      turnId: 't-1',
      step: 1,
      toolCallId: 'w1',
      toolName: 'save_note',
      effect: 'write',
      state: 'APPROVED',
      idempotencyKey: 'k',
      fingerprint: 'f',
      input: {},
      inputRedacted: false,
      result: null,
      error: null,
      verdict: null,
      approval: { requestedAt: 0, expiresAt: 1, messageId: null, decision: { verdict: 'approved', by, at: 0, note: null } },
      createdAt: 0,
      updatedAt: 0,
    });
    expect(approvalNotWaitingText(answered('discord:42'))).toBe('That request was already approved by <@42>.');
    expect(approvalNotWaitingText(answered('cli:bob'))).toBe('That request was already approved by bob (command line).');
    expect(approvalNotWaitingText(answered('web:ana'))).toBe('That request was already approved by ana (web console).');
  });
});
