import { describe } from 'vitest';
import { describeAdmission } from './admission_contract.js';
import { describeApprovals } from './approval_contract.js';
import { describeCheckpointsAndTranscript } from './checkpoint_contract.js';
import { describeFencingAndLeases } from './fencing_contract.js';
import type { MakeHarness } from './harness.js';
import { describeLedger } from './ledger_contract.js';
import { describeReplies } from './reply_contract.js';
import { describeResolution } from './resolution_contract.js';
import { describeResume } from './resume_contract.js';
import { describeSweeps } from './sweep_contract.js';

export type { Harness, MakeHarness } from './harness.js';

/**
 * The behaviour every `TurnStore` must show (DESIGN §6–§8, §10), written against the interface
 * alone so that the SQLite and the PostgreSQL backends answer to the same tests. Each
 * test gets a fresh store from `makeHarness` on a fresh manual clock.
 */
export function describeTurnStoreContract(name: string, makeHarness: MakeHarness): void {
  describe(`TurnStore contract: ${name}`, () => {
    describeAdmission(makeHarness);
    describeFencingAndLeases(makeHarness);
    describeLedger(makeHarness);
    describeCheckpointsAndTranscript(makeHarness);
    describeResume(makeHarness);
    describeSweeps(makeHarness);
    describeReplies(makeHarness);
    describeResolution(makeHarness);
    describeApprovals(makeHarness);
  });
}
