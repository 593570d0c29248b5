import { pino } from 'pino';
import type { ConversationDeps } from '../../src/conversation/conversation_deps.js';
import { Intake } from '../../src/conversation/turns/intake.js';
import type { MessageSource, ReplySink, Transport } from '../../src/conversation/transport.js';
import { SystemRandom } from '../../src/core/random.js';
import { AccessPolicy } from '../../src/discord/access_policy.js';
import { accessSection } from '../../src/discord/access_settings.js';
import { discordSection } from '../../src/discord/discord_settings.js';
import { permissionsSection } from '../../src/tools/permissions_settings.js';
import { discordTransport } from '../../src/discord/discord_transport.js';
import { FakeDiscord } from './fake_discord/server.js';
import { ManualClock } from './manual_clock.js';

/** The conversation on the local Discord: its intake, and how to close both. */
export interface DiscordConversation {
  readonly intake: Intake;
  readonly transport: Transport;
  close(): Promise<void>;
}

/**
 * The Discord transport on `discord` (not yet connected), with `settings` added to its `discord`
 * section and everyone let in; its own waits (typing, delivery retries, a login that cannot reach Discord) run on a manual clock that nothing advances.
 */
export function localDiscordTransport(discord: FakeDiscord, settings: Record<string, unknown> = {}): Transport {
  const clock = new ManualClock();
  const logger = pino({ level: 'silent' });
  return discordTransport({
    discord: discordSection.parse({ token: FakeDiscord.TOKEN, api_url: discord.restUrl, ...settings }),
    vision: false,
    token: FakeDiscord.TOKEN,
    access: new AccessPolicy(accessSection.parse({}), permissionsSection.parse({})),
    clock,
    logger,
    startup: { clock, random: new SystemRandom(), logger, timeoutMs: 60_000, signal: new AbortController().signal },
  });
}

/**
 * The Discord transport connected to `discord`, handing its commands to an intake over the
 * dependencies `deps` makes from the transport's sink and message source. Unlike the whole
 * program, the conversation runs on whatever clocks `deps` names, so a test can drive a long
 * outage with a manual clock; the transport's own waits (typing, delivery retries) run on a
 * manual clock of their own that nothing advances. `settings` are added to its `discord` section.
 */
export async function discordConversation(
  discord: FakeDiscord,
  deps: (sink: ReplySink, source: MessageSource) => ConversationDeps,
  settings: Record<string, unknown> = {},
): Promise<DiscordConversation> {
  const transport = localDiscordTransport(discord, settings);
  const { sink, messages } = await transport.connect();
  const intake = new Intake(deps(sink, messages));
  void transport.listen((inbound) => intake.submit(inbound));
  return {
    intake,
    transport,
    async close() {
      transport.stopInput();
      await intake.shutdown();
      await transport.close();
    },
  };
}
