import BetterSqlite3 from 'better-sqlite3';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { botMessages, discordConfigYaml, heldAnswer, isPost, isPostOrEdit, posts, replyTo, say, shown, userMessagesOf, type BotMessageBody } from '../support/discord_bot.js';
import { useDiscordWorld } from '../support/discord_world.js';
import { chatText } from '../support/fake_llm/openai_chat.js';
import type { FakeStep } from '../support/fake_llm/server.js';
import { deferred } from '../support/deferred.js';

const overloaded: FakeStep = { kind: 'reply', status: 529, body: { error: { type: 'overloaded_error' } } };
/** A member of the guild other than the world's user. */
const OTHER_MEMBER = '1100000000000000042';
/** A tiny recovery deadline, so an overload suspends at once, and a breaker that lets a probe through almost at once, so `resume` can reach the model. */
const RECOVERY =
  'llm_recovery:\n  generation_deadline_seconds: 0.2\n  backoff_base_seconds: 0.01\n  backoff_cap_seconds: ' +
  '0.02\n  breaker_cooldown_base_seconds: 0.001\n  breaker_cooldown_cap_seconds: 0.001\nturn_state:\n  ' +
  'auto_resume: false\n';
const FENCE_LINE = /^\s*```/;

/** A 5,000-character answer: prose, a long ```ts block that cannot fit in one message, prose again. */
function longAnswerWithCode(): string {
  const prose = (tag: string, n: number): string[] => Array.from({ length: n }, (_, i) => `${tag} ${i}: milk is a drink that people pour into their tea.`);
  const code = Array.from({ length: 50 }, (_, i) => `  const cup${i} = pour('milk', ${i}); // line ${i} of the block`);
  const body = [...prose('Intro', 30), 'Here is the code:', '```ts', 'function pourAll(): void {', ...code, '}', '```', ...prose('Outro', 4)].join('\n');
  return `${body}\n${'That is all'.padEnd(5000 - body.length - 1, '.')}`;
}

/** Lines of prose joined by newlines, cut to exactly `length` characters (not ending in a space or a break). */
function answerOfLength(length: number): string {
  const text = Array.from({ length: 100 }, (_, i) => `Line ${String(i).padStart(2, '0')}: milk is a drink that people pour into their tea.`)
    .join('\n')
    .slice(0, length);
  expect(text).toHaveLength(length);
  expect(text).toMatch(/\S$/);
  return text;
}

describe('flows on Discord through the program’s main function', { timeout: 60_000 }, () => {
  const world = useDiscordWorld();

  async function connected(): Promise<void> {
    await world.start(discordConfigYaml(world.discord, world.fake.baseUrl, RECOVERY)).logged('connected to Discord');
  }

  /**
   * The world's user asks `question` while the model stays overloaded; resolves with its id once
   * the reply's draft, which showed the wait for the model, says that the work is saved.
   */
  async function suspendedQuestion(question: string): Promise<string> {
    world.fake.enqueue(...Array.from({ length: 200 }, () => overloaded));
    const asked = await say(world.discord, question);
    await world.discord.whenRequest((r) => isPostOrEdit(world.discord)(r) && /^ℹ️ The model provider is overloaded/.test((r.body as BotMessageBody).content));
    expect(
      botMessages(world.discord)
        .filter((m) => m.message_reference?.message_id === asked)
        .map((m) => m.content),
    ).toEqual([expect.stringMatching(/^ℹ️ The model provider is overloaded/)]);
    // The overload is over: forget its unused steps and its requests, so every request from here on is new.
    world.fake.reset();
    return asked;
  }

  /**
   * The world's user asks `question` and the model streams `answer`, holding after its first 500
   * characters until the bot has posted them as a draft; resolves with the question's id then.
   */
  async function askWithDraft(question: string, answer: string): Promise<string> {
    const drafted = deferred();
    world.fake.enqueue(heldAnswer(answer.slice(0, 500), drafted.promise, answer.slice(500)));
    await connected();
    const asked = await say(world.discord, question);
    await world.discord.whenRequest(isPost(world.discord));
    drafted.resolve();
    return asked;
  }

  function turnRow(messageId: string): { status: string; turn_id: string } | undefined {
    const db = new BetterSqlite3(join(world.temp.path(), 'data/turn_state/turns.sqlite3'), { readonly: true });
    try {
      return db.prepare('SELECT status, turn_id FROM turns WHERE message_id = ?').get(messageId) as { status: string; turn_id: string } | undefined;
    } finally {
      db.close();
    }
  }

  function statusOf(messageId: string): unknown {
    return turnRow(messageId)?.status;
  }

  it('splits a 5,000-character reply with a code block across messages that each render on their own', async () => {
    const answer = longAnswerWithCode();
    expect(answer).toHaveLength(5000);
    // Streamed as a model sends it: the bot posts a draft of the beginning, then edits it into the first message.
    const asked = await askWithDraft('show me the code', answer);
    await world.discord.whenRequest((r) => isPost(world.discord)(r) && /That is all\.+$/.test((r.body as { content: string }).content));
    const shownNow = botMessages(world.discord);
    expect(shownNow.length).toBeGreaterThanOrEqual(3);
    expect(shownNow[0]?.message_reference?.message_id).toBe(asked);
    expect(shownNow.slice(1).map((m) => m.message_reference)).toEqual(shownNow.slice(1).map(() => undefined));
    for (const message of shownNow) {
      expect(message.content.length).toBeLessThanOrEqual(2000);
      expect(message.content.split('\n').filter((line) => FENCE_LINE.test(line)).length % 2, message.content).toBe(0);
    }
    // Undo the splitter's work: where one message closes the block and the next reopens it, drop both fence lines.
    const parts = shownNow.map((m) => m.content);
    let rejoined = 0;
    for (let i = 0; i + 1 < parts.length; i += 1) {
      if (parts[i]?.endsWith('\n```') === true && parts[i + 1]?.startsWith('```ts\n') === true) {
        parts[i] = parts[i]?.slice(0, -'\n```'.length) ?? '';
        parts[i + 1] = parts[i + 1]?.slice('```ts\n'.length) ?? '';
        rejoined += 1;
      }
    }
    expect(rejoined).toBeGreaterThanOrEqual(1);
    expect(parts.join('\n')).toBe(answer);
  });

  it('shows a streamed reply of exactly 2,000 characters as one message, its draft edited into the whole reply', async () => {
    const answer = answerOfLength(2000);
    const asked = await askWithDraft('tell me about milk', answer);
    // The whole reply in one edit, a follow-up post, or a refusal: whichever comes first ends the wait.
    const last = await world.discord.whenRequest(
      (r) =>
        isPostOrEdit(world.discord)(r) &&
        (r.status !== 200 || (r.body as BotMessageBody).content === answer || (isPost(world.discord)(r) && (r.body as BotMessageBody).message_reference === undefined)),
    );
    expect([last.method, last.status]).toEqual(['PATCH', 200]);
    expect(botMessages(world.discord).map((m) => [m.content, m.message_reference?.message_id])).toEqual([[answer, asked]]);
    expect(world.discord.requests.filter(isPostOrEdit(world.discord)).map((r) => `${r.method} ${r.status}`)).toEqual(['POST 200', 'PATCH 200']);
  });

  it('splits a streamed reply of 2,001 characters into two messages that Discord takes', async () => {
    const answer = answerOfLength(2001);
    const asked = await askWithDraft('tell me about milk', answer);
    // The follow-up post, or a refusal: whichever comes first ends the wait.
    await world.discord.whenRequest((r) => isPostOrEdit(world.discord)(r) && (r.status !== 200 || (isPost(world.discord)(r) && (r.body as BotMessageBody).message_reference === undefined)));
    expect(world.discord.requests.filter(isPostOrEdit(world.discord)).map((r) => `${r.method} ${r.status}`)).toEqual(['POST 200', 'PATCH 200', 'POST 200']);
    const shownNow = botMessages(world.discord);
    expect(shownNow.map((m) => m.message_reference?.message_id)).toEqual([asked, undefined]);
    for (const message of shownNow) expect(message.content.length).toBeLessThanOrEqual(2000);
    expect(shownNow.map((m) => m.content).join('\n')).toBe(answer);
  });

  it('after an overload, refuses another member’s resume, then resumes for the author with the original question', async () => {
    await connected();
    await suspendedQuestion('what is milk?');
    const intruder = await say(world.discord, 'resume', OTHER_MEMBER);
    expect((await replyTo(world.discord, intruder)).content).toBe('ℹ️ Only the person who asked can resume their saved request.');
    expect(world.fake.requests).toHaveLength(0);
    world.fake.enqueue(chatText('Milk is a drink.'));
    const resumed = await say(world.discord, 'resume');
    await shown(world.discord, 'Milk is a drink.');
    expect(botMessages(world.discord).map((m) => m.content)).toEqual([
      expect.stringMatching(/^ℹ️ The model provider is overloaded/) as unknown,
      'ℹ️ Only the person who asked can resume their saved request.',
      'ℹ️ Continuing your saved request.',
      'Milk is a drink.',
    ]);
    expect(botMessages(world.discord)[2]?.message_reference?.message_id).toBe(resumed);
    // One model request since the overload, the author's resume, carrying the original question and not the trigger.
    expect(world.fake.requests).toHaveLength(1);
    expect(userMessagesOf(world.fake.requests[0]?.body)).toEqual([{ role: 'user', content: '[alice]: what is milk?' }]);
  });

  it('shows the wait for the model in the reply’s draft; /status then lists the saved request by the short id /resume takes, with its expiry', async () => {
    await connected();
    const asked = await suspendedQuestion('what is milk?');
    const draft = world.discord.requests.find((r) => isPost(world.discord)(r) && (r.body as BotMessageBody).message_reference?.message_id === asked);
    expect((draft?.body as BotMessageBody | undefined)?.content).toMatch(/^ℹ️ waiting for the model \(attempt 2, \d+ s\)…$/);

    const short = turnRow(asked)?.turn_id.slice(0, 8) ?? '';
    const status = await world.discord.dispatchInteraction({ name: 'status' });
    const answer = await world.discord.whenRequest((r) => r.method === 'PATCH' && r.path.endsWith(`/${status.token}/messages/@original`));
    expect((answer.body as BotMessageBody).content.split('\n').slice(0, 3)).toEqual([
      'ℹ️ Nothing is running in this channel.',
      'Your saved request (`resume <id>` continues one):',
      expect.stringMatching(new RegExp(`^• \`${short}\` stopped \\d+ s ago \\(openai test-model: .+\\); expires in 23 h$`)),
    ]);

    world.fake.enqueue(chatText('Milk is a drink.'));
    await world.discord.dispatchInteraction({ name: 'resume', options: [{ name: 'turn', type: 3, value: short }] });
    // The draft shows the text as it streams; the reply is final once the completed turn's delivery edits it.
    await world.discord.whenRequest((r) => r.method === 'PATCH' && (r.body as BotMessageBody).content === 'Milk is a drink.');
    expect(statusOf(asked)).toBe('TERMINAL_COMPLETED');
  });

  it('will not resume a request whose message was edited, not even on a second try', async () => {
    await connected();
    const asked = await suspendedQuestion('what is milk?');
    world.discord.editUserMessage(asked, `<@${world.discord.world.bot.id}> what is cream?`);
    const first = await say(world.discord, 'resume');
    expect((await replyTo(world.discord, first)).content).toBe('ℹ️ Your original message was edited or deleted since, so I will not continue the old request. Please ask again.');
    expect(world.fake.requests).toHaveLength(0);
    expect(statusOf(asked)).toBe('TERMINAL_REJECTED');
    // Nothing is saved any more: a second `resume` is told so, and the model is not asked.
    const second = await say(world.discord, 'resume');
    expect((await replyTo(world.discord, second)).content).toBe('ℹ️ You have no saved request in this channel to resume.');
    expect(posts(world.discord).map((m) => m.content)).not.toContain('ℹ️ Continuing your saved request.');
    expect(world.fake.requests).toHaveLength(0);
    expect(statusOf(asked)).toBe('TERMINAL_REJECTED');
  });
});
