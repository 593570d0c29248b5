import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { chatText, chatToolCalls } from '../support/fake_llm/openai_chat.js';
import type { FakeLLMServer } from '../support/fake_llm/server.js';
import { isNotice, isReply, runProgram, startJsonLinesProgram, type JsonLinesProgram } from '../support/program.js';
import { noteToolConfig, useProgramServers } from '../support/program_servers.js';
import { useTempDir } from '../support/temp_dir.js';
import type { ToolTarget } from '../support/tool_target.js';

const never = new Promise<void>(() => undefined);

interface ListedTurn {
  readonly id: string;
  readonly short_id: string;
  readonly status: string;
  readonly calls_awaiting_verdict: number;
}

interface ChatRequest {
  readonly messages: { readonly role: string; readonly tool_call_id?: string; readonly content: unknown }[];
}

// Real processes: generous limits that only catch hangs.
describe('the operator command line beside the running bot: the resolution loop', { timeout: 120_000 }, () => {
  const temp = useTempDir();
  const servers = useProgramServers();
  let fake: FakeLLMServer;
  let target: ToolTarget;
  beforeEach(() => {
    ({ fake, target } = servers.current);
  });

  function configIn(dir: string): string {
    const path = join(dir, 'config.yml');
    mkdirSync(dir, { recursive: true });
    // Without auto-resume the bot's notice of a verdict asks for `resume`: the requester's resume is what continues the turn.
    writeFileSync(path, noteToolConfig(servers.current, 'logging:\n  level: warn\nturn_state:\n  auto_resume: false\n  continue_after_restart: false\n'));
    return path;
  }

  function start(dir: string): JsonLinesProgram {
    return servers.current.track(startJsonLinesProgram(['--config', configIn(dir)], { cwd: dir }));
  }

  /** A `save_note` call cut off by SIGKILL, then a restart whose `resume` parks the turn: the restarted bot and the notice. */
  async function parkedAfterKill(dir: string): Promise<{ bot: JsonLinesProgram; notice: Record<string, unknown> }> {
    target.reply({ hold: never });
    fake.enqueue(chatToolCalls([{ id: 'w1', name: 'save_note', args: '{"text":"buy milk"}' }]));
    const first = start(dir);
    await first.waitFor((e) => e['type'] === 'ready');
    target.onRequest = () => first.kill('SIGKILL');
    first.send('Note: buy milk');
    await first.exited;
    target.onRequest = undefined;
    const bot = start(dir);
    await bot.waitFor((e) => e['type'] === 'ready', 'the restarted bot to be ready');
    await bot.waitFor(isNotice('interrupted'), 'the notice that the turn was interrupted');
    bot.send('resume');
    const notice = await bot.waitFor(isNotice('manual_resolution'), 'the notice that the turn awaits a verdict');
    return { bot, notice };
  }

  /** `holdfast turns list --json` as its own process while the bot runs: the one parked turn, named by the notice. */
  async function listedWhileBotRuns(dir: string, notice: Record<string, unknown>): Promise<ListedTurn> {
    const listed = await runProgram(['turns', 'list', '--json', '--config', join(dir, 'config.yml')], { cwd: dir });
    expect(listed.stderr).toBe('');
    expect(listed.status).toBe(0);
    const { turns } = JSON.parse(listed.stdout) as { turns: ListedTurn[] };
    expect(turns).toHaveLength(1);
    const [turn] = turns;
    if (turn === undefined) throw new Error('no turn listed');
    expect(turn).toMatchObject({ id: notice['turn'], status: 'AWAITING_RESOLUTION', calls_awaiting_verdict: 1 });
    expect(notice['text']).toContain(`turn ${turn.short_id}`);
    expect(notice['text']).toMatch(/`save_note` \(call w1\)/);
    return turn;
  }

  it('a write cut off by a kill is resolved --applied from the command line; the running bot tells the requester, whose resume completes on the operator’s result', async () => {
    const dir = temp.path();
    const { bot, notice } = await parkedAfterKill(dir);
    const turn = await listedWhileBotRuns(dir, notice);

    const resolved = await runProgram(['turns', 'resolve', turn.short_id, 'w1', '--applied', '--result', 'T-42', '--config', join(dir, 'config.yml')], { cwd: dir });
    expect(resolved.stderr).toBe('');
    expect(resolved.status).toBe(0);
    expect(resolved.stdout).toContain(`Recorded: call w1 (save_note) of turn ${turn.short_id} took effect: T-42`);
    expect(resolved.stdout).toContain('is resumable');

    expect(await bot.waitFor(isNotice('resolved'), 'the notice of the verdict, without the user asking')).toMatchObject({
      turn: turn.id,
      text: expect.stringContaining('`save_note` (call w1) took effect: T-42. Type `resume` to continue your request.') as unknown,
    });
    fake.enqueue(chatText('Your note is saved as T-42.'));
    bot.send('resume');
    expect(await bot.waitFor(isReply, 'the reply of the resumed turn')).toMatchObject({ turn: turn.id, text: 'Your note is saved as T-42.' });
    expect(bot.events.filter(isNotice('resolved'))).toHaveLength(1);
    const request = fake.requests.at(-1)?.body as ChatRequest;
    expect(request.messages.at(-1)).toEqual({ role: 'tool', tool_call_id: 'w1', content: 'T-42' });
    expect(target.requests).toHaveLength(1);
  });

  it('a write cut off by a kill is resolved --not-applied; the model is told it did not take effect and the call is not sent again', async () => {
    const dir = temp.path();
    const { bot, notice } = await parkedAfterKill(dir);
    const turn = await listedWhileBotRuns(dir, notice);

    const resolved = await runProgram(['turns', 'resolve', turn.short_id, 'w1', '--not-applied', '--note', 'no such note at the target', '--json', '--config', join(dir, 'config.yml')], { cwd: dir });
    expect(resolved.stderr).toBe('');
    expect(resolved.status).toBe(0);
    expect(JSON.parse(resolved.stdout)).toEqual({ turn: turn.id, call: 'w1', state: 'RESOLVED_NOT_APPLIED', remaining: 0, turn_status: 'SUSPENDED' });

    expect(await bot.waitFor(isNotice('resolved'), 'the notice of the verdict, without the user asking')).toMatchObject({
      text: expect.stringContaining('`save_note` (call w1) did not take effect (no such note at the target)') as unknown,
    });
    fake.enqueue(chatText('The note was not saved. Shall I try again?'));
    bot.send('resume');
    expect(await bot.waitFor(isReply)).toMatchObject({ turn: turn.id, text: 'The note was not saved. Shall I try again?' });
    const request = fake.requests.at(-1)?.body as ChatRequest;
    const result = request.messages.at(-1);
    expect(result).toMatchObject({ role: 'tool', tool_call_id: 'w1' });
    expect(result?.content).toMatch(/^Error: An operator checked and found that this call did not take effect \(no such note at the target\)/);
    expect(target.requests).toHaveLength(1);
  });

  it('doctor, as its own process beside the running bot, reports the call awaiting a verdict with status 1', async () => {
    const dir = temp.path();
    const { notice } = await parkedAfterKill(dir);
    const doctor = await runProgram(['doctor', '--config', join(dir, 'config.yml')], { cwd: dir });
    expect(doctor.status).toBe(1);
    expect(doctor.stdout).toContain('calls awaiting a verdict: 1');
    expect(doctor.stdout).toContain(`problem: 1 call(s) of 1 turn(s) await an operator's verdict`);
    expect(notice['turn']).toEqual(expect.any(String));
  });
});
