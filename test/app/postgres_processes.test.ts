import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { chatText } from '../support/fake_llm/openai_chat.js';
import { FakeLLMServer, type FakeStep } from '../support/fake_llm/server.js';
import { freshPgConnection } from '../support/postgres_schema.js';
import { isNotice, isReply, type JsonLinesProgram, startJsonLinesProgram, useProgramsKilledAfterEach } from '../support/program.js';
import { useTempDir } from '../support/temp_dir.js';

const overloaded: FakeStep = { kind: 'reply', status: 529, body: { error: { type: 'overloaded_error' } } };
const turnStatus = (status: string) => (event: Record<string, unknown>) => event['type'] === 'turn' && event['status'] === status;

// Real processes: generous limits that only catch hangs.
describe('several console processes on one PostgreSQL store', { timeout: 90_000 }, () => {
  const temp = useTempDir();
  let fake: FakeLLMServer;

  beforeEach(async () => {
    fake = await FakeLLMServer.start();
  });
  afterEach(async () => {
    await fake.close();
  });
  const track = useProgramsKilledAfterEach();

  /** Both processes' configuration; `more` is appended, `fallbacks` added to `llm` when given. */
  function configFor(schema: string, url: string, fallbacks = '', more = ''): string {
    return temp.write(
      'config.yml',
      `llm:
  provider: openai
  base_url: ${fake.baseUrl}
  model: test-model
${fallbacks}logging:
  level: warn
llm_recovery:
  generation_deadline_seconds: 0.5
  backoff_base_seconds: 0.05
  backoff_cap_seconds: 0.1
turn_state:
  backend: postgres
  auto_resume: false
  continue_after_restart: false
  postgres:
    url: ${url}
    schema: ${schema}
tools:
  builtin: []
${more}`,
    );
  }

  async function started(config: string): Promise<JsonLinesProgram> {
    const program = track(startJsonLinesProgram(['--config', config], { cwd: temp.path() }));
    await program.waitFor((e) => e['type'] === 'ready', 'the program to be ready');
    return program;
  }

  it('let exactly one of two processes continue a suspended turn when the same user types resume in both', async () => {
    const { url, schema } = freshPgConnection();
    const config = configFor(schema, url);
    const first = await started(config);
    const second = await started(config);
    fake.enqueue(...Array.from({ length: 200 }, () => overloaded));
    first.send('Are you there?');
    const suspended = await first.waitFor(turnStatus('SUSPENDED'), 'the turn to be suspended');
    fake.reset();
    // The winner's answer is held until the other process has answered its resume: one that came after the turn ended would find nothing saved.
    let release = (): void => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    const answer = chatText('Yes, I am here.');
    fake.enqueue({ ...answer, chunks: [held, ...answer.chunks] }, chatText('A second answer would mean a second run.'));

    first.send('resume');
    second.send('resume');
    const outcome = (program: JsonLinesProgram): Promise<Record<string, unknown>> =>
      program.waitFor(
        (e) => (isReply(e) || (e['type'] === 'message' && e['kind'] === 'notice' && e['notice'] !== 'suspended' && e['notice'] !== 'resumed')) && e['turn'] !== undefined,
        'an answer to resume',
      );
    const outcomes = [outcome(first), outcome(second)];
    await Promise.race(outcomes);
    release();
    const answers = await Promise.all(outcomes);

    const replies = answers.filter(isReply);
    expect(replies).toEqual([expect.objectContaining({ turn: suspended['turn'], text: 'Yes, I am here.' })]);
    expect(answers.filter((answer) => !isReply(answer))).toEqual([expect.objectContaining({ kind: 'notice', notice: 'in_progress', turn: suspended['turn'] })]);
    expect(fake.requests).toHaveLength(1);
    const sent = (fake.requests[0]?.body as { messages: { role: string; content: unknown }[] }).messages.filter((m) => m.role === 'user');
    expect(sent).toEqual([{ role: 'user', content: '[console-user]: Are you there?' }]);
    expect([...first.events, ...second.events].filter(isNotice('interrupted'))).toEqual([]);
  });

  it('never suspend the running turn of one process when another restarts', async () => {
    const { url, schema } = freshPgConnection();
    const config = configFor(schema, url);
    const restarting = await started(config);
    const working = await started(config);
    let release = (): void => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    const answer = chatText(['Still ', 'working, ', 'and done.']);
    fake.enqueue({ ...answer, chunks: [...answer.chunks.slice(0, 2), held, ...answer.chunks.slice(2)] });
    working.send('A long question.');
    const active = await working.waitFor(turnStatus('ACTIVE'), 'the working process to start its turn');
    await fake.whenRequests(1);

    restarting.kill('SIGKILL');
    await restarting.exited;
    const restarted = await started(config);
    release();

    expect(await working.waitFor(isReply, 'the working process to finish its turn')).toMatchObject({ turn: active['turn'], text: 'Still working, and done.' });
    expect(working.events.filter((e) => e['type'] === 'turn').map((e) => e['status'])).toEqual(['ACTIVE', 'TERMINAL_COMPLETED']);
    expect(restarted.events.filter(isNotice('interrupted'))).toEqual([]);
  });

  it('use the model an admin chose with /model in one process for the requests the other answers', async () => {
    const { url, schema } = freshPgConnection();
    const fallbacks = `  fallbacks:\n    - provider: openai\n      base_url: ${fake.baseUrl}\n      model: fast-model\n`;
    const config = configFor(schema, url, fallbacks, 'permissions:\n  admins: [console-user]\n');
    const choosing = await started(config);
    const answering = await started(config);
    const answered = async (program: JsonLinesProgram, line: string, reply: string): Promise<void> => {
      fake.enqueue(chatText(reply));
      program.send(line);
      await program.waitFor((e) => isReply(e) && e['text'] === reply, `the reply ${reply}`);
    };

    choosing.send('/model fast-model');
    await choosing.waitFor((e) => isNotice('status')(e) && String(e['text']).startsWith('From the next request on, this channel uses `fast-model`'), 'the choice to be made');
    await answered(answering, 'Which model are you?', 'The fast one.');
    answering.send('/model default');
    await answering.waitFor((e) => isNotice('status')(e) && String(e['text']).startsWith('This channel is back to the configured order'), 'the choice to be cleared');
    await answered(choosing, 'And now?', 'The first one.');

    expect(fake.requests.map((request) => (request.body as { model?: unknown }).model)).toEqual(['fast-model', 'test-model']);
  });

  it('never let one user past turns_per_hour together, when both admit many of their messages at once', async () => {
    const { url, schema } = freshPgConnection();
    const config = configFor(schema, url, '', 'chat:\n  max_queued_per_channel: 20\nlimits:\n  per_user:\n    turns_per_hour: 5\n');
    const programs = [await started(config), await started(config)];
    fake.enqueue(...Array.from({ length: 20 }, (_, index) => chatText(`Answer ${index}.`)));
    const answered = (program: JsonLinesProgram) => program.events.filter((e) => isReply(e) || isNotice('limited')(e));

    for (let index = 0; index < 10; index += 1) for (const program of programs) program.send(`Question ${index}`);
    await Promise.all(programs.map((program) => program.waitFor(() => answered(program).length >= 10, 'an answer to each of its ten messages')));

    const answers = programs.flatMap(answered);
    expect(answers.filter(isReply)).toHaveLength(5);
    expect(answers.filter(isNotice('limited'))).toHaveLength(15);
    expect(answers.find(isNotice('limited'))).toMatchObject({ text: expect.stringMatching(/^You have reached your limit of 5 requests per hour, so I did not start on this message\./) as unknown });
    expect(fake.requests).toHaveLength(5);
  });
});
