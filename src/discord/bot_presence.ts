import { ActivityType, Events, Status, type Client } from 'discord.js';
import { TEXTS } from '../conversation/notices/texts.js';
import type { RouteHealth } from '../recovery/route_health.js';

/**
 * The bot's presence: the custom status beside its name. It is `discord.status_message`, or
 * while every model of the default route is refused by its breaker, that the model is
 * overloaded; with neither there is nothing to show, nothing is sent, and Discord's default
 * stays. Each shard's gateway session holds its own presence: a shard that identifies anew is
 * sent the status, one that resumed is sent a status that changed while it was away, and a
 * change is sent to every shard that is up.
 */
export class BotPresence {
  #health: RouteHealth = 'ok';
  /** The status each shard's session shows; `undefined` for none. */
  readonly #shown = new Map<number, string | undefined>();

  constructor(
    private readonly client: Client,
    private readonly statusMessage: string | undefined,
  ) {
    client.on(Events.ShardReady, (shardId) => {
      this.#shown.delete(shardId);
      this.#update(shardId);
    });
    client.on(Events.ShardResume, (shardId) => this.#update(shardId));
  }

  /** Shows the health of the default route from now on. */
  show(health: RouteHealth): void {
    this.#health = health;
    for (const shard of this.client.ws.shards.values()) if (shard.status === Status.Ready) this.#update(shard.id);
  }

  /** Sends shard `shardId` the status, unless its session shows it already. */
  #update(shardId: number): void {
    const text = this.#health === 'overloaded' ? TEXTS.modelOverloaded : this.statusMessage;
    if (this.#shown.get(shardId) === text) return;
    this.client.user?.setPresence({ shardId, activities: text === undefined ? [] : [{ type: ActivityType.Custom, name: 'Custom Status', state: text }] });
    this.#shown.set(shardId, text);
  }
}
