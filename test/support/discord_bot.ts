import { EventEmitter } from 'node:events';
import { Readable, Writable } from 'node:stream';
import { runCli } from '../../src/app/run.js';
import { isPost } from './fake_discord/clients.js';
import { FakeDiscord, type MessageJson, type RecordedRequest } from './fake_discord/server.js';
import { CHAT_DONE, chatChunk } from './fake_llm/openai_chat.js';
import type { FakeStep } from './fake_llm/server.js';

/** What the bot sends when it posts or edits a message, as the fake Discord recorded it. */
export interface BotMessageBody {
  readonly content: string;
  readonly message_reference?: { readonly message_id: string };
  readonly allowed_mentions?: { readonly parse?: readonly string[]; readonly users?: readonly string[]; readonly roles?: readonly string[]; readonly replied_user?: boolean };
}

/** The program's main function running on Discord in-process. */
export interface InProcessBot {
  /** The exit status, once it stopped. */
  readonly done: Promise<number>;
  /** Resolves once the log (stderr) contains `text`, already or later. */
  logged(text: string): Promise<void>;
  /** What it logged so far. */
  stderr(): string;
  /** Sends it SIGTERM. */
  stop(): void;
}

/** A config.yml for the bot on `discord`, its model at `llmBaseUrl`, with JSON logs at info; `extra` is appended as is. */
export function discordConfigYaml(discord: FakeDiscord, llmBaseUrl: string, extra = '', token = FakeDiscord.TOKEN): string {
  return `discord:\n  token: ${token}\n  api_url: ${discord.restUrl}\nllm:\n  base_url: ${llmBaseUrl}\n  model: test-model\nlogging:\n  level: info\n  format: json\ntools:\n  builtin: []\n${extra}`;
}

/** Runs the program's main function (`runCli`) with the config.yml in `cwd`, as `holdfast` would start on Discord. */
export function runDiscordBot(cwd: string): InProcessBot {
  let stderr = '';
  const waiters: { text: string; resolve: () => void }[] = [];
  const err = Object.assign(
    new Writable({
      write(chunk: Buffer, _encoding, callback) {
        stderr += chunk.toString('utf8');
        for (const w of waiters.filter((x) => stderr.includes(x.text))) {
          waiters.splice(waiters.indexOf(w), 1);
          w.resolve();
        }
        callback();
      },
    }),
    { isTTY: false },
  );
  const signals = new EventEmitter();
  const done = runCli([], { stdin: Readable.from([]), stdout: { write: () => true }, stderr: err, env: {}, cwd, signals });
  return {
    done,
    logged: (text) => (stderr.includes(text) ? Promise.resolve() : new Promise((resolve) => waiters.push({ text, resolve }))),
    stderr: () => stderr,
    stop: () => void signals.emit('SIGTERM'),
  };
}

const messagesPath = (discord: FakeDiscord): string => `/channels/${discord.world.channelId}/messages`;

export { isPost };

/** A new message or an edit of one the bot made in the world's channel. */
export const isPostOrEdit =
  (discord: FakeDiscord) =>
  (r: Pick<RecordedRequest, 'method' | 'path'>): boolean =>
    isPost(discord)(r) || (r.method === 'PATCH' && r.path.startsWith(`${messagesPath(discord)}/`));

/** Every message the bot posted in the world's channel, in order. */
export function posts(discord: FakeDiscord): BotMessageBody[] {
  return discord.requests.filter(isPost(discord)).map((r) => r.body as BotMessageBody);
}

/** The bot's messages in the world's channel as members see them now (edits applied), oldest first. */
export function botMessages(discord: FakeDiscord): MessageJson[] {
  return discord.messagesIn(discord.world.channelId).filter((m) => m.author.id === discord.world.bot.id);
}

/** A member (the world's user unless told) says `text` to the bot in the world's channel, mentioning it; resolves with the message id. */
export function say(discord: FakeDiscord, text: string, authorId = discord.world.user.id): Promise<string> {
  return discord.dispatchMessage({ channelId: discord.world.channelId, authorId, content: `<@${discord.world.bot.id}> ${text}`, mentionsBot: true });
}

/** Resolves with the bot's first post (already made or to come) that replies to message `messageId`. */
export async function replyTo(discord: FakeDiscord, messageId: string): Promise<BotMessageBody> {
  const request = await discord.whenRequest((r) => isPost(discord)(r) && (r.body as BotMessageBody).message_reference?.message_id === messageId);
  return request.body as BotMessageBody;
}

/** Resolves once the bot posted or edited a message in the channel to read `content`. */
export async function shown(discord: FakeDiscord, content: string): Promise<void> {
  await discord.whenRequest((r) => isPostOrEdit(discord)(r) && (r.body as BotMessageBody).content === content);
}

/** The user messages (role `user`) of a recorded OpenAI chat request, as the model received them. */
export function userMessagesOf(body: unknown): unknown[] {
  return (body as { messages: { role: string; content: unknown }[] }).messages.filter((m) => m.role === 'user');
}

/**
 * A streamed model answer that sends `first`, holds the rest back until `held` resolves, then
 * sends `rest` and finishes: a test releases it once the bot has posted its draft of `first`.
 */
export function heldAnswer(first: string, held: Promise<void>, rest: string): FakeStep {
  return {
    kind: 'stream',
    chunks: [chatChunk({ role: 'assistant', content: '' }), chatChunk({ content: first }), held, chatChunk({ content: rest }), chatChunk({}, { finishReason: 'stop' }), CHAT_DONE],
  };
}
