import { setMaxListeners } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Random } from '../../../src/core/random.js';
import type { FakeDiscord } from '../fake_discord/server.js';
import { turnMessage, turnToken } from '../fake_llm/tool_conversation.js';
import type { TurnRecords } from './turn_records.js';

/** How members behave: a think time drawn uniformly between the two bounds after each answer. */
export interface MemberOptions {
  readonly thinkMinMs: number;
  readonly thinkMaxMs: number;
  readonly random: Random;
}

/** The user id of the member who talks in the channel of index `index`: one member per channel. */
export function memberId(index: number): string {
  return (1_100_000_000_000_000_000n + BigInt(index)).toString();
}

/**
 * One member per channel, each talking to the bot in its own channel: a message mentioning the
 * bot, then a wait until the whole reply (or a notice that none is coming) is visible, then a
 * think time, then the next message, until told to stop sending.
 */
export class LoadMembers {
  readonly #running: Promise<void>[] = [];
  readonly #stopSending = new AbortController();
  readonly #giveUp = new AbortController();

  constructor(
    private readonly discord: FakeDiscord,
    private readonly records: TurnRecords,
    private readonly options: MemberOptions,
  ) {
    // Every member listens to both signals at once.
    setMaxListeners(0, this.#stopSending.signal, this.#giveUp.signal);
  }

  /** Starts a member in each of the first `channels` channels, each after a first think time, so they do not all speak at once. */
  start(channels: number): void {
    const { channelIds } = this.discord.world;
    if (channels > channelIds.length) throw new Error(`the local Discord has ${channelIds.length} channels, not ${channels}`);
    for (let index = 0; index < channels; index += 1) this.#running.push(this.#talk(index, channelIds[index] ?? ''));
  }

  /** No member sends another message; each still waits for the answer to its last one. */
  stopSending(): void {
    this.#stopSending.abort();
  }

  /** Stops sending, then resolves once every member has its last answer, or after `deadlineMs`, when the rest stop waiting. */
  async drain(deadlineMs: number): Promise<void> {
    this.stopSending();
    const timer = setTimeout(() => this.#giveUp.abort(), deadlineMs);
    await Promise.all(this.#running);
    clearTimeout(timer);
  }

  async #talk(index: number, channelId: string): Promise<void> {
    const { bot } = this.discord.world;
    for (let turn = 1; await this.#think(); turn += 1) {
      const token = turnToken(index, turn);
      const record = this.records.open(token, channelId, performance.now());
      const messageId = await this.discord.dispatchMessage({ channelId, authorId: memberId(index), content: `<@${bot.id}> ${turnMessage(token)}`, mentionsBot: true });
      this.records.sent(record, messageId);
      await this.records.whenSettled(record, this.#giveUp.signal);
    }
  }

  /** Waits a think time; `false` once members stop sending. */
  async #think(): Promise<boolean> {
    const { thinkMinMs, thinkMaxMs, random } = this.options;
    try {
      await sleep(thinkMinMs + random.next() * (thinkMaxMs - thinkMinMs), undefined, { signal: this.#stopSending.signal });
      return true;
    } catch {
      return false;
    }
  }
}
