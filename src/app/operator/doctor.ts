import { assertNever } from '../../core/assert_never.js';
import type { ConfigSource } from '../../config/load.js';
import { formatKeyPath, type ConfigProblem } from '../../config/problems.js';
import type { OperatorStore, StoreCensus } from '../../turn_state/operator_store.js';
import { shortTurnId } from '../../engine/call_label.js';
import type { Config } from '../config_schema.js';
import { EXIT, type ExitStatus } from '../exit_status.js';
import { censusJson, jsonDocument } from './operator_json.js';
import type { StoreAccess } from '../../turn_state/opened_store.js';

/** What `holdfast doctor` found: problems make it unhealthy, notes do not. */
export interface DoctorReport {
  readonly problems: readonly string[];
  readonly notes: readonly string[];
  readonly census: StoreCensus | null;
  /** What SQLite's integrity check and the blob check found; `null` when the store was not open. */
  readonly integrity: readonly string[] | null;
}

/** What the doctor looks at: the loaded configuration and the store as it was found. */
export interface DoctorSubject {
  readonly config: Config;
  readonly source: ConfigSource;
  /** The variables the bot reads and doctor does not, unset where doctor ran. */
  readonly excused: readonly ConfigProblem[];
  readonly store: StoreAccess;
}

/**
 * `holdfast doctor`, for a person and for monitoring: checks what the configuration needs to
 * answer (a model), runs the store's integrity check and counts what waits for someone. It
 * contacts neither the model provider nor any tool. Status 0 when healthy; 1 when an operator is
 * needed — calls awaiting a verdict, a lease past its end that no process took over, calls
 * stranded RUNNING, replies not yet delivered, an integrity error, no store at the configured
 * path (named: a doctor run from another folder than the bot's looks elsewhere). Turns suspended
 * for their requesters' `resume` or waiting for a person's approval are information, as is a
 * store switched off. With `--json`,
 * `{"healthy","problems","notes","census"}`.
 */
export async function doctor(subject: DoctorSubject, json: boolean, out: (text: string) => void): Promise<ExitStatus> {
  const report = await examine(subject);
  const healthy = report.problems.length === 0;
  if (json) {
    out(jsonDocument({ healthy, problems: report.problems, notes: report.notes, census: report.census === null ? null : censusJson(report.census) }));
  } else {
    out(describe(subject, report, healthy));
  }
  return healthy ? EXIT.ok : EXIT.failure;
}

async function examine({ config, excused, store }: DoctorSubject): Promise<DoctorReport> {
  const problems: string[] = [];
  const notes = excused.map((problem) => `${formatKeyPath(problem.path ?? [])}: ${problem.message} here; the bot needs it where it runs`);
  if (config.llm.model === undefined) problems.push('no model is configured (llm.model): every message is answered with what to configure');
  switch (store.kind) {
    case 'disabled':
      notes.push('turn_state.enabled is false: nothing is kept on disk, and an interrupted reply is lost');
      return { problems, notes, census: null, integrity: null };
    case 'missing':
      problems.push(`no store at ${store.path}: the bot creates it at its first start; a bot that already ran keeps it elsewhere (check turn_state.db_path and the folder it is relative to)`);
      return { problems, notes, census: null, integrity: null };
    case 'unusable':
      problems.push(`the store ${store.path} cannot be used: ${store.cause}`);
      return { problems, notes, census: null, integrity: null };
    case 'opened': {
      const integrity = await store.operator.checkIntegrity();
      problems.push(...integrity.map((line) => `integrity: ${line}`));
      const census = await store.operator.census();
      problems.push(...censusProblems(census));
      if (census.strandedCalls > 0) problems.push(await strandedProblem(store.operator, census.strandedCalls));
      if (census.active > 0) notes.push(`${census.active} turn(s) running`);
      if (census.suspended > 0) notes.push(`${census.suspended} turn(s) suspended, waiting for their requester's resume: holdfast turns list --status suspended`);
      if (census.awaitingApproval > 0) {
        notes.push(
          `${census.callsAwaitingApproval} call(s) of ${census.awaitingApproval} turn(s) wait for a person's approval, denied when nobody answers in time: ` +
            'holdfast turns list --status awaiting_approval',
        );
      }
      return { problems, notes, census, integrity };
    }
    default:
      return assertNever(store);
  }
}

function censusProblems(census: StoreCensus): string[] {
  const problems: string[] = [];
  if (census.callsAwaitingVerdict > 0) {
    problems.push(`${census.callsAwaitingVerdict} call(s) of ${census.awaitingResolution} turn(s) await an operator's verdict: holdfast turns list --status awaiting_resolution`);
  }
  if (census.expiredLeases > 0) {
    problems.push(
      `${census.expiredLeases} turn(s) ACTIVE past the end of their lease, with no process keeping them: ` +
        'start the bot (it suspends them) or check the process that runs them: holdfast turns list --status active',
    );
  }
  if (census.repliesPending > 0) problems.push(`${census.repliesPending} reply(ies) not yet delivered; the running bot posts them (a stopped one at its next start): holdfast turns list`);
  return problems;
}

/** Calls left RUNNING in turns that ended (DESIGN §9.3): nothing will settle them, so an operator has to look, and is told where. */
async function strandedProblem(operator: OperatorStore, count: number): Promise<string> {
  const turns = (await operator.listTurns({ strandedCalls: true })).map(({ turn }) => shortTurnId(turn.turnId));
  return (
    `${count} call(s) still marked RUNNING in turns that are no longer running, so nothing will settle them and ` +
    `each may have taken effect: check them at their tools' targets (holdfast turns show ${turns.join(', ')})`
  );
}

function describe({ source, store }: DoctorSubject, report: DoctorReport, healthy: boolean): string {
  const lines = [`configuration: ${source.kind === 'file' ? source.path : '(defaults)'}: valid`];
  const { census, integrity } = report;
  if (store.kind === 'opened' && integrity !== null) lines.push(`store: ${store.path}: integrity ${integrity.length === 0 ? 'ok' : 'check failed'}`);
  if (census !== null) {
    lines.push(
      `turns: ${census.active} active, ${census.suspended} suspended, ${census.awaitingResolution} awaiting resolution, ${census.awaitingApproval} awaiting approval`,
      `calls awaiting a verdict: ${census.callsAwaitingVerdict}`,
      `calls waiting for approval: ${census.callsAwaitingApproval}`,
      `replies not yet delivered: ${census.repliesPending}`,
    );
  }
  lines.push(...report.problems.map((problem) => `problem: ${problem}`), ...report.notes.map((note) => `note: ${note}`));
  lines.push(healthy ? 'healthy' : `needs attention: ${report.problems.length} problem(s)`);
  return `${lines.join('\n')}\n`;
}
