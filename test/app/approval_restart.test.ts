import { useDiscordServers, type DiscordServers } from '../support/program_servers.js';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { beforeEach, describe, expect, it } from 'vitest';
import { answersTo, answerTo, approvalButton, approvalRequest, approvedBy, isApprovalRequest, isEditOf } from '../support/approval_requests.js';
import { startProgram, type BackgroundProgram } from '../support/background_program.js';
import { discordConfigYaml, say } from '../support/discord_bot.js';
import type { FakeDiscord } from '../support/fake_discord/server.js';
import { chatText, chatToolCalls } from '../support/fake_llm/openai_chat.js';
import type { FakeLLMServer } from '../support/fake_llm/server.js';
import { useTempDir } from '../support/temp_dir.js';
import type { ToolTarget } from '../support/tool_target.js';

const NOTE = '{"text":"printer on fire"}';
const SAVED = 'I saved the note.';

interface StoredCall {
  readonly state: string;
  readonly approval_verdict: string | null;
  readonly approval_by: string | null;
}

// Real processes on the local Discord: generous limits that only catch hangs.
describe('a request for approval outlives the bot process that asked it (SQLite store)', { timeout: 120_000 }, () => {
  const temp = useTempDir();
  const servers = useDiscordServers();
  let discord: FakeDiscord;
  let fake: FakeLLMServer;
  let target: ToolTarget;
  let track: DiscordServers['track'];
  beforeEach(() => {
    ({ discord, fake, target, track } = servers.current);
  });

  const storePath = (): string => join(temp.path(), 'data/turn_state/turns.sqlite3');

  /** Starts the bot on the store in the test's directory, its writes waiting for approval; resolves once it is on Discord. */
  async function start(env: Readonly<Record<string, string>> = {}): Promise<BackgroundProgram> {
    const tools = `  approval_defaults: { write: required }
  http:
    - name: save_note
      description: Saves a note.
      method: POST
      url: ${target.url}/notes
      effect: write
      parameters: { type: object, properties: { text: { type: string } }, required: [text] }
`;
    const config = join(temp.path(), 'config.yml');
    writeFileSync(config, discordConfigYaml(discord, fake.baseUrl, tools));
    const program = track(startProgram(['--config', config], { cwd: temp.path(), env: { PATH: process.env['PATH'], ...env } }));
    await program.logged('connected to Discord');
    return program;
  }

  /** The calls the store file holds, read beside the bot. */
  function storedCalls(): StoredCall[] {
    const db = new BetterSqlite3(storePath(), { readonly: true });
    try {
      return db.prepare('SELECT state, approval_verdict, approval_by FROM ops').all() as StoredCall[];
    } finally {
      db.close();
    }
  }

  /**
   * A member asks `bot` for a note to be saved; resolves with their message and the bot's request
   * for approval once the channel's next message is answered and its turn finished: the asking is
   * then over, the request posted and stored with its call, and no other turn is under way.
   */
  async function askedForApproval(bot: BackgroundProgram): Promise<{ asked: string; request: string }> {
    const channel = discord.world.channelId;
    fake.enqueue(chatToolCalls([{ id: 'w1', name: 'save_note', args: NOTE }]));
    const asked = await say(discord, 'note that the printer is on fire');
    const request = (await approvalRequest(discord, channel)).id;
    fake.enqueue(chatText('It is sunny.'));
    expect(await answerTo(discord, channel, await say(discord, 'how is the weather?'))).toBe('It is sunny.');
    await bot.logged('"status":"TERMINAL_COMPLETED"');
    return { asked, request };
  }

  /** The request shows that the world's user approved it, its buttons gone. */
  function expectApproved(request: string): void {
    expect(discord.message(request)?.components).toEqual([]);
    expect(discord.message(request)?.content).toMatch(approvedBy(discord.world.user.id));
  }

  it('Approve pressed after a kill and a restart runs the write once, the reply follows, and the request shows who approved it, asked only once', async () => {
    const channel = discord.world.channelId;
    const first = await start();
    const { asked, request } = await askedForApproval(first);
    first.kill('SIGKILL');
    await first.exited;

    fake.enqueue(chatText(SAVED));
    await start();
    const press = discord.pressButton({ messageId: request, customId: approvalButton(discord, request, 'Approve') });
    expect(await discord.whenInteractionAnswer(press.id, (a) => a.type === 'edit_original')).toMatchObject({ ephemeral: true, content: 'ℹ️ Approved: `save_note` runs now.' });
    expect(await answerTo(discord, channel, asked)).toBe(SAVED);
    await discord.whenRequest(isEditOf(channel, request));

    expect(target.requests.map((r) => r.body)).toEqual([NOTE]);
    expect(answersTo(discord, channel, asked)).toEqual([SAVED]);
    expectApproved(request);
    expect(discord.requests.filter(isApprovalRequest(channel))).toHaveLength(1);
  });

  it('an approval recorded just before the bot was killed is carried out by the next process by itself: the write runs once and its call ends APPLIED', async () => {
    const channel = discord.world.channelId;
    const approved = { approval_verdict: 'approved', approval_by: `discord:${discord.world.user.id}` };
    const first = await start({ HOLDFAST_FAULT: 'after_approval' });
    const { asked, request } = await askedForApproval(first);
    const press = discord.pressButton({ messageId: request, customId: approvalButton(discord, request, 'Approve') });
    expect(await first.exited).toBeNull();
    expect(discord.interactionAnswers(press.id).filter((a) => a.type === 'edit_original')).toEqual([]);
    expect(storedCalls()).toEqual([{ state: 'APPROVED', ...approved }]);
    expect(target.requests).toHaveLength(0);

    fake.enqueue(chatText(SAVED));
    await start();
    expect(await answerTo(discord, channel, asked)).toBe(SAVED);
    await discord.whenRequest(isEditOf(channel, request));

    expect(target.requests.map((r) => r.body)).toEqual([NOTE]);
    expect(storedCalls()).toEqual([{ state: 'APPLIED', ...approved }]);
    expect(answersTo(discord, channel, asked)).toEqual([SAVED]);
    expectApproved(request);
    expect(discord.requests.filter(isApprovalRequest(channel))).toHaveLength(1);
  });
});
