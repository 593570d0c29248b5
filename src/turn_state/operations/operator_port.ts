import type { OperatorStore } from '../operator_store.js';
import { answerApproval } from './approvals.js';
import type { StoreRunner } from './durable_store.js';
import { census, listTurns, processes, rowProblems, turnDetail, turnWork } from './operator_reads.js';
import { recordVerdict } from './resolution.js';
import { turnsWithPrefix } from './turn_reads.js';
import { usageReport } from './usage.js';

/**
 * The operators' port over `runner` (DESIGN §9.1): the turns as operators list and show them, the
 * verdicts and the answers to requests for approval they record, the census, the integrity check and the backup. Built apart from the other
 * ports, so that an operator's command loads only the operations it can run.
 */
export function operatorPort(runner: StoreRunner): OperatorStore {
  return {
    listTurns: (filter) => runner.read('list turns', listTurns(filter)),
    turnsWithPrefix: (prefix, limit) => runner.read('find turns by prefix', turnsWithPrefix(prefix, limit)),
    turnDetail: (turnId) => runner.read('read turn detail', turnDetail(turnId)),
    turnWork: (turnId) => runner.read('read turn work', turnWork(turnId)),
    resolveCall: (request) => runner.write('record verdict', recordVerdict(request)),
    answerApproval: (answer) => runner.write('answer approval', answerApproval(answer)),
    census: () => runner.read('count turns', census()),
    processes: () => runner.read('list processes', processes()),
    usage: (query) => runner.read('report usage', usageReport(query)),
    checkIntegrity: async () => [...(await runner.storageProblems()), ...(await runner.read('check integrity', rowProblems()))],
    backup: (path) => runner.backup(path),
  };
}
