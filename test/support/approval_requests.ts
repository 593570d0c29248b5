import type { BotMessageBody } from './discord_bot.js';
import type { FakeDiscord, MessageJson, RecordedRequest } from './fake_discord/server.js';

/** Whether a request is the bot posting a request for approval in `channelId`: a message with buttons. */
export const isApprovalRequest =
  (channelId: string) =>
  (r: RecordedRequest): boolean =>
    r.method === 'POST' && r.path === `/channels/${channelId}/messages` && r.status === 200 && Array.isArray((r.body as { components?: unknown[] } | undefined)?.components);

/** Whether a request is the bot answering message `messageId` of `channelId` in words: a reply or a notice, not a request for approval. */
export const isAnswerTo =
  (channelId: string, messageId: string) =>
  (r: RecordedRequest): boolean =>
    r.method === 'POST' &&
    r.path === `/channels/${channelId}/messages` &&
    r.status === 200 &&
    !isApprovalRequest(channelId)(r) &&
    (r.body as BotMessageBody).message_reference?.message_id === messageId;

/** Whether a request is the bot editing its message `messageId` of `channelId`. */
export const isEditOf =
  (channelId: string, messageId: string) =>
  (r: RecordedRequest): boolean =>
    r.method === 'PATCH' && r.path === `/channels/${channelId}/messages/${messageId}`;

/** Resolves with the text of the bot's first answer (given already or to come) to message `messageId` of `channelId`. */
export async function answerTo(discord: FakeDiscord, channelId: string, messageId: string): Promise<string> {
  return ((await discord.whenRequest(isAnswerTo(channelId, messageId))).body as BotMessageBody).content;
}

/** The texts of every answer the bot posted so far to message `messageId` of `channelId`, in order. */
export function answersTo(discord: FakeDiscord, channelId: string, messageId: string): string[] {
  return discord.requests.filter(isAnswerTo(channelId, messageId)).map((r) => (r.body as BotMessageBody).content);
}

/** Resolves with the bot's first request for approval in `channelId` (posted already or to come), as the channel stores it. */
export async function approvalRequest(discord: FakeDiscord, channelId: string): Promise<MessageJson> {
  const posted = await discord.whenRequest(isApprovalRequest(channelId));
  const nonce = (posted.body as { nonce?: string }).nonce;
  const message = discord.messagesIn(channelId).find((m) => m.nonce === nonce);
  if (message === undefined) throw new Error('the request for approval was not stored');
  return message;
}

/** The custom id of the button labelled `label` on the stored message `messageId`, as a member pressing it sends it. */
export function approvalButton(discord: FakeDiscord, messageId: string, label: string): string {
  const rows = (discord.message(messageId)?.components ?? []) as { components: { label?: string; custom_id?: string }[] }[];
  const found = rows.flatMap((row) => row.components).find((component) => component.label === label)?.custom_id;
  if (found === undefined) throw new Error(`no ${label} button on message ${messageId}`);
  return found;
}

/** How a request for approval ends once `userId` approved it: their mention and the minute, in UTC. */
export const approvedBy = (userId: string): RegExp => new RegExp(`\\*\\*Approved\\*\\* by <@${userId}> at \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d UTC\\.$`);
