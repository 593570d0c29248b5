import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RandomIds } from '../../src/core/ids.js';
import type { OpKey, OpRecord } from '../../src/turn_state/ledger_types.js';
import type { TurnStore } from '../../src/turn_state/turn_store.js';
import type { TurnRecord } from '../../src/turn_state/turn_types.js';
import { discordConfigYaml, posts, replyTo, type InProcessBot } from '../support/discord_bot.js';
import { useDiscordWorld } from '../support/discord_world.js';
import type { CommandOptionJson } from '../support/fake_discord/server.js';
import { ManualClock } from '../support/manual_clock.js';
import { openStoreFileAt, startingWith } from '../support/turn_store.js';

/** A member of the guild who is not one of `permissions.admins`. */
const NOT_AN_ADMIN = '1100000000000000042';
/** A channel of a server other than the world's: the local Discord answers Unknown Channel for it. */
const OTHER_SERVER_CHANNEL = '1100000000000000077';
const STORE = 'data/turn_state/turns.sqlite3';
const AGE = '(?:less than a minute|\\d+ (?:min|h|d)) ago';

const option = (name: string, value: string): CommandOptionJson => ({ name, type: 3, value });

/** The store key of call `id` in step 1 of a turn. */
const key = (turnId: string, id: string): OpKey => ({ turnId, step: 1, toolCallId: id });

/** Parks a turn of the world's user in `channelId`: its `create_ticket` calls timed out, and each awaits an operator's verdict. */
async function parkTurn(turns: TurnStore, requesterId: string, channelId: string, messageId: string, calls: readonly string[]): Promise<string> {
  const admission = await turns.admit({ identity: { source: 'discord', channelId, messageId }, requesterId, messageDigest: 'digest', start: startingWith('file a ticket about the milk') });
  if (admission.disposition !== 'admitted') throw new Error(`${messageId} was not admitted`);
  const { lease } = admission;
  const input = { title: 'the milk is sour' };
  await turns.recordModelTurn(lease, {
    step: 1,
    assistant: { role: 'assistant', content: calls.map((id) => ({ type: 'tool_use' as const, id, name: 'create_ticket', input })) },
    intents: calls.map((id) => ({ toolCallId: id, toolName: 'create_ticket', input, effect: 'write' as const })),
  });
  for (const id of calls) {
    await turns.moveOp(lease, key(lease.turnId, id), { to: 'RUNNING' });
    await turns.moveOp(lease, key(lease.turnId, id), { to: 'OUTCOME_UNKNOWN', error: 'timed out' });
  }
  await turns.awaitResolution(
    lease,
    calls.map((id) => key(lease.turnId, id)),
    'uncertain writes',
  );
  return lease.turnId;
}

/** The Discord message ids of the requests parked in this server: ids as Discord gives them, which a reply may refer to. */
const ASKED_HERE = 1100000000000000000n;

describe('the admins’ /turns and /resolve on Discord', { timeout: 60_000 }, () => {
  const world = useDiscordWorld();
  const storeAt = (): string => join(world.temp.path(), STORE);

  /** Parks turns in the bot's store before it starts: `here` in the world's channel, one in another server and one in a direct message. */
  async function parked(here: readonly (readonly string[])[]): Promise<{ here: string[]; elsewhere: string; direct: string }> {
    const opened = openStoreFileAt(storeAt(), { clock: new ManualClock({ wallStart: Date.UTC(2020, 0, 1) }), ids: new RandomIds() });
    const { user, channelId, dmChannelId } = world.discord.world;
    const ids: string[] = [];
    for (const [index, calls] of here.entries()) ids.push(await parkTurn(opened.turns, user.id, channelId, `${ASKED_HERE + BigInt(index)}`, calls));
    const elsewhere = await parkTurn(opened.turns, user.id, OTHER_SERVER_CHANNEL, '1100000000000000900', ['call_x']);
    const direct = await parkTurn(opened.turns, user.id, dmChannelId, '1100000000000000901', ['call_y']);
    await opened.close();
    return { here: ids, elsewhere, direct };
  }

  /** Starts the bot with the world's user as its one admin (`extra` appended to its config); resolves once it is connected. */
  async function started(extra = ''): Promise<InProcessBot> {
    const admins = `permissions:\n  admins: ['${world.discord.world.user.id}']\n${extra}`;
    const bot = world.start(discordConfigYaml(world.discord, world.fake.baseUrl, admins));
    await bot.logged('connected to Discord');
    return bot;
  }

  /** Uses slash command `name` (by the world's user, an admin, unless told); resolves with its answer, once Discord was told it is for its user alone. */
  async function command(name: string, options: readonly CommandOptionJson[] = [], userId?: string): Promise<string> {
    const sent = await world.discord.dispatchInteraction({ name, options, ...(userId === undefined ? {} : { userId }) });
    const ack = await world.discord.whenRequest((r) => r.method === 'POST' && r.path === `/interactions/${sent.id}/${sent.token}/callback`);
    expect(ack.body).toEqual({ type: 5, data: { flags: 64 } });
    const answer = await world.discord.whenRequest((r) => r.method === 'PATCH' && r.path.endsWith(`/${sent.token}/messages/@original`));
    return (answer.body as { content: string }).content;
  }

  const resolve = (turn: string, call: string, verdict: string, text?: string, userId?: string): Promise<string> =>
    command('resolve', [option('turn', turn), option('call', call), option('verdict', verdict), ...(text === undefined ? [] : [option('text', text)])], userId);

  /** Stops the bot and reads what the store holds of a turn. */
  async function storedAfterStop(turnId: string): Promise<{ turn: TurnRecord | undefined; ops: OpRecord[] }> {
    expect(await world.stop()).toBe(0);
    const opened = openStoreFileAt(storeAt(), { clock: new ManualClock() });
    try {
      return { turn: await opened.turns.getTurn(turnId), ops: await opened.turns.listOps(turnId) };
    } finally {
      await opened.close();
    }
  }

  it('registers /model, /turns and /resolve for server administrators only, beside the commands everyone has', async () => {
    await started();
    const registered = world.discord.requests.find((r) => r.method === 'PUT' && r.path.endsWith('/commands'));
    const commands = registered?.body as { name: string; default_member_permissions?: string; contexts?: number[]; options?: unknown[] }[];
    expect(commands.map((c) => [c.name, c.default_member_permissions])).toEqual([
      ['help', undefined],
      ['stop', undefined],
      ['resume', undefined],
      ['status', undefined],
      ['usage', undefined],
      ['model', '0'],
      ['turns', '0'],
      ['approve', '0'],
      ['deny', '0'],
      ['resolve', '0'],
    ]);
    expect(commands.filter((c) => c.default_member_permissions === '0').map((c) => c.contexts)).toEqual([[0], [0], [0], [0], [0]]);
    expect(commands.find((c) => c.name === 'resolve')?.options).toMatchObject([
      { name: 'turn', type: 3, required: true },
      { name: 'call', type: 3, required: true },
      {
        name: 'verdict',
        type: 3,
        required: true,
        choices: [
          { name: 'applied', value: 'applied' },
          { name: 'not_applied', value: 'not_applied' },
        ],
      },
      { name: 'text', type: 3, required: false },
    ]);
  });

  it('answers an admin’s /turns to them alone, with the parked turns of this server only and the /resolve for each call', async () => {
    const { here } = await parked([['call_a', 'call_b']]);
    const [turnId = ''] = here;
    const short = turnId.slice(0, 8);
    await started();
    const { channelId, user } = world.discord.world;
    const answer = await command('turns');
    expect(answer.split('\n')).toEqual([
      expect.stringMatching(new RegExp(`^ℹ️ \`${short}\` AWAITING_RESOLUTION in <#${channelId}> for <@${user.id}>, asked ${AGE}$`)) as unknown,
      `  • \`create_ticket\` (call call_a): \`/resolve turn:${short} call:call_a verdict:applied\` or \`verdict:not_applied\``,
      `  • \`create_ticket\` (call call_b): \`/resolve turn:${short} call:call_b verdict:applied\` or \`verdict:not_applied\``,
    ]);
    expect(posts(world.discord)).toEqual([]);
    expect(world.fake.requests).toEqual([]);
  });

  it('says nothing needs attention when no turn of this server does', async () => {
    await parked([]);
    await started();
    expect(await command('turns')).toBe('ℹ️ Nothing needs attention.');
  });

  it('keeps a long /turns answer to one message, ending with how many more there are', async () => {
    await parked(Array.from({ length: 25 }, () => ['call_a', 'call_b']));
    await started();
    const answer = await command('turns');
    expect(answer.length).toBeLessThanOrEqual(2000);
    const listed = answer.split('\n').filter((line) => line.includes(' AWAITING_RESOLUTION in ')).length;
    expect(listed).toBeGreaterThan(0);
    expect(answer.split('\n').at(-1)).toBe(`…and ${25 - listed} more.`);
  });

  it('records an admin’s /resolve in the ledger, answers them alone, and tells the requester in their channel once the last call has a verdict', async () => {
    const { here } = await parked([['call_a', 'call_b']]);
    const [turnId = ''] = here;
    const short = turnId.slice(0, 8);
    await started();
    const { channelId, user } = world.discord.world;

    expect(await resolve(short, 'call_a', 'applied', 'ticket T-42 exists')).toBe(
      `ℹ️ Recorded: \`create_ticket\` (call call_a) of turn ${short} took effect: ticket T-42 exists. 1 more call of this turn awaits a verdict.`,
    );
    expect(posts(world.discord)).toEqual([]);
    expect(await resolve(short, 'call_b', 'not_applied')).toBe(
      `ℹ️ Recorded: \`create_ticket\` (call call_b) of turn ${short} did not take effect. Every uncertain call of ` +
        `the turn has a verdict: <@${user.id}> is told in <#${channelId}>, and the request goes on by itself or at ` +
        `their \`resume\`.`,
    );
    const told = await replyTo(world.discord, String(ASKED_HERE));
    expect(told.content).toMatch(new RegExp(`^ℹ️ An operator checked your saved request \\(turn ${short}\\): .*Type \`resume\` to continue your request\\.$`));
    expect(posts(world.discord)).toHaveLength(1);

    const stored = await storedAfterStop(turnId);
    expect(stored.turn?.status).toBe('SUSPENDED');
    expect(stored.ops.map((op) => [op.toolCallId, op.state, op.verdict?.by, op.verdict?.text])).toEqual([
      ['call_a', 'RESOLVED_APPLIED', `discord:${user.id}`, 'ticket T-42 exists'],
      ['call_b', 'RESOLVED_NOT_APPLIED', `discord:${user.id}`, null],
    ]);
    expect(world.fake.requests).toEqual([]);
  });

  it('refuses /turns and /resolve to anyone not in permissions.admins, and changes nothing', async () => {
    const { here } = await parked([['call_a']]);
    const [turnId = ''] = here;
    await started();
    expect(await command('turns', [], NOT_AN_ADMIN)).toBe('ℹ️ Only the bot’s admins can use /turns.');
    expect(await resolve(turnId, 'call_a', 'applied', 'done', NOT_AN_ADMIN)).toBe('ℹ️ Only the bot’s admins can use /resolve.');
    expect(posts(world.discord)).toEqual([]);

    const stored = await storedAfterStop(turnId);
    expect(stored.turn?.status).toBe('AWAITING_RESOLUTION');
    expect(stored.ops.map((op) => [op.state, op.verdict])).toEqual([['MANUAL_RESOLUTION_REQUIRED', null]]);
  });

  it('refuses a verdict for an unknown turn, a turn of another server or a direct message, an unknown call, and a call that has one already', async () => {
    const { here, elsewhere, direct } = await parked([['call_a', 'call_b']]);
    const [turnId = ''] = here;
    await started();
    expect(await resolve('no-such-turn', 'call_a', 'applied')).toBe('ℹ️ Not recorded: there is no turn no-such-turn in this server.');
    expect(await resolve(elsewhere, 'call_x', 'applied')).toBe(`ℹ️ Not recorded: there is no turn ${elsewhere} in this server.`);
    expect(await resolve(direct, 'call_y', 'applied')).toBe(`ℹ️ Not recorded: there is no turn ${direct} in this server.`);
    expect(await resolve(turnId, 'call_z', 'applied')).toBe(`ℹ️ Not recorded: turn ${turnId} has no call call_z.`);
    expect(await resolve(turnId, 'call_a', 'maybe')).toBe('ℹ️ Not recorded: a verdict is `applied` or `not_applied`, not `maybe`.');
    await resolve(turnId, 'call_a', 'applied', 'ticket T-42 exists');
    expect(await resolve(turnId, 'call_a', 'not_applied', 'changed my mind')).toBe(`ℹ️ Not recorded: call call_a of turn ${turnId} takes no verdict: it already has a verdict (RESOLVED_APPLIED).`);
    expect(posts(world.discord)).toEqual([]);

    const stored = await storedAfterStop(turnId);
    expect(stored.ops.map((op) => [op.toolCallId, op.state, op.verdict?.text ?? null])).toEqual([
      ['call_a', 'RESOLVED_APPLIED', 'ticket T-42 exists'],
      ['call_b', 'MANUAL_RESOLUTION_REQUIRED', null],
    ]);
    const other = openStoreFileAt(storeAt(), { clock: new ManualClock() });
    try {
      expect((await other.turns.listOps(elsewhere)).map((op) => op.state)).toEqual(['MANUAL_RESOLUTION_REQUIRED']);
      expect((await other.turns.listOps(direct)).map((op) => op.state)).toEqual(['MANUAL_RESOLUTION_REQUIRED']);
    } finally {
      await other.close();
    }
  });

  it('tells an admin that there is nothing to look at or resolve while the store is off', async () => {
    await started('turn_state:\n  enabled: false\n');
    const refusal = 'ℹ️ The bot keeps no turns right now (its store is off), so there is nothing to look at or resolve.';
    expect(await command('turns')).toBe(refusal);
    expect(await resolve('some-turn', 'call_a', 'applied')).toBe(refusal);
    expect(posts(world.discord)).toEqual([]);
  });

  it('never shows an operator’s answer in the channel, even when Discord refused to let it answer its user alone', async () => {
    await parked([['call_a']]);
    const bot = await started();
    world.discord.failNext((r) => r.method === 'POST' && r.path.startsWith('/interactions/'), { status: 400 });
    await world.discord.dispatchInteraction({ name: 'turns' });
    await bot.logged('could not be shown to them alone');
    // The command after it is answered: whatever the refused one would have posted came before.
    expect(await command('turns')).toMatch(/^ℹ️ `/);
    expect(posts(world.discord)).toEqual([]);
    expect(world.discord.requests.filter((r) => r.method === 'POST' && r.path.startsWith('/webhooks/'))).toEqual([]);
  });
});
