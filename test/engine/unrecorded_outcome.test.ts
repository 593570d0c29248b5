import { Writable } from 'node:stream';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { storeDurability } from '../../src/engine/durability.js';
import { runTurn } from '../../src/engine/run_turn.js';
import { TurnStateUnavailable } from '../../src/turn_state/errors.js';
import type { OpMove } from '../../src/turn_state/ledger_types.js';
import { engineHarness, targetToolsConfig, useEngineParts } from '../support/engine_harness.js';
import { failingMoves } from '../support/turn_store.js';
import { chatText, chatToolCalls } from '../support/fake_llm/openai_chat.js';
import { runToCompletion } from '../support/recovery_runtime.js';

const SAVE = { id: 'w1', name: 'save_note', args: '{"text":"buy milk"}' };
const cannotEncode = (): Error => new RangeError('Maximum call stack size exceeded');

describe('a call that ran is never left RUNNING when its outcome cannot be recorded (DESIGN §9.3)', () => {
  const parts = useEngineParts();

  /** Runs a turn whose model saves a note and then answers, its ledger moves failing where `failure` says; ERROR lines land in `errors`. */
  async function saveNote(failure: (move: OpMove) => Error | undefined) {
    const { fake, target, store, clock } = parts.current;
    fake.enqueue(chatToolCalls([SAVE]), chatText('Saved.'));
    target.reply({ status: 201, body: '{"id":"note-7","text":"buy milk"}' });
    const failing = failingMoves(store, failure);
    const harness = engineHarness(failing.store, clock, fake, targetToolsConfig(target.url));
    const errors: Record<string, unknown>[] = [];
    const logger = pino({ level: 'error' }, new Writable({ write: (line: Buffer, _encoding, done) => done(void errors.push(JSON.parse(line.toString()) as Record<string, unknown>)) }));
    const { turn, lease } = await harness.admit('m-1', 'Note: buy milk.');
    const ending = await runToCompletion(harness.recoveryClock, runTurn({ ...turn, logger }, { kind: 'fresh' }, storeDurability(failing.store, lease), harness.deps));
    const ops = await store.listOps(lease.turnId);
    return { ending, ops, errors, refused: failing.refused, turnRow: await store.getTurn(lease.turnId) };
  }

  it('records a stand-in the store can keep when the result cannot be written as it is, gives the model the same, and goes on', async () => {
    let failed = false;
    const run = await saveNote((move) => (move.to === 'APPLIED' && !failed ? ((failed = true), cannotEncode()) : undefined));

    expect(run.ending).toEqual({ status: 'TERMINAL_COMPLETED', reply: 'Saved.' });
    const standIn = `[the tool's answer (33 characters) could not be stored (Maximum call stack size exceeded); its first 500 characters follow]\n{"id":"note-7","text":"buy milk"}`;
    expect(run.ops.map((op) => [op.state, op.result])).toEqual([['APPLIED', standIn]]);
    const sent = parts.current.fake.requests[1]?.body as { messages: { role: string; content: unknown }[] };
    expect(sent.messages.at(-1)).toMatchObject({ role: 'tool', content: standIn });
    expect(parts.current.target.requests).toHaveLength(1);
    expect(run.errors).toEqual([expect.objectContaining({ msg: 'the outcome of save_note could not be recorded', call: 'w1', err: expect.objectContaining({ type: 'RangeError' }) as unknown })]);
  });

  it('leaves the call to an operator’s verdict, the turn parked, when not even the stand-in can be written', async () => {
    const run = await saveNote((move) => (move.to === 'APPLIED' ? cannotEncode() : undefined));

    expect(run.ending.status).toBe('AWAITING_RESOLUTION');
    expect(run.turnRow?.status).toBe('AWAITING_RESOLUTION');
    expect(run.ops.map((op) => op.state)).toEqual(['MANUAL_RESOLUTION_REQUIRED']);
    expect(run.refused.map((move) => move.to)).toEqual(['APPLIED', 'APPLIED']);
    expect(parts.current.target.requests).toHaveLength(1);
    expect(parts.current.fake.requests).toHaveLength(1);
    expect(run.errors.map((line) => line['msg'])).toEqual([
      'the outcome of save_note could not be recorded',
      "nor could a note in place of the outcome of save_note: it waits for an operator's verdict",
    ]);
  });

  it('parks the turn for a verdict when the store fails at the very write that settles the call, instead of ending it with the call RUNNING', async () => {
    let failed = false;
    const run = await saveNote((move) => (move.to === 'APPLIED' && !failed ? ((failed = true), new TurnStateUnavailable('move op to APPLIED', new Error('disk I/O error'))) : undefined));

    expect(run.ending.status).toBe('AWAITING_RESOLUTION');
    expect(run.ops.map((op) => op.state)).toEqual(['MANUAL_RESOLUTION_REQUIRED']);
    expect(run.refused).toHaveLength(1);
    expect(parts.current.fake.requests).toHaveLength(1);
  });
});
