import { beforeEach, describe, expect, it } from 'vitest';
import { inboundFromText } from '../../src/conversation/notices/channel_commands.js';
import type { ConversationDeps } from '../../src/conversation/conversation_deps.js';
import { everyChannelOf } from '../../src/conversation/transport.js';
import { Intake } from '../../src/conversation/turns/intake.js';
import { deferred } from '../support/deferred.js';
import { chatText, chatToolCalls } from '../support/fake_llm/openai_chat.js';
import type { FakeLLMServer } from '../support/fake_llm/server.js';
import { useConversationHarness } from '../support/conversation_harness.js';
import type { SeenEvent } from '../support/recording_sink.js';
import type { ToolTarget } from '../support/tool_target.js';

describe('a turn a restart interrupted, in the conversation', () => {
  const harness = useConversationHarness();
  let fake: FakeLLMServer;
  let target: ToolTarget;
  let events: SeenEvent[];
  beforeEach(() => {
    ({ fake, target, events } = harness.current);
  });

  const intake = (extraConfig = '', overrides: Partial<ConversationDeps> = {}): Intake => new Intake(harness.current.deps(extraConfig, overrides));
  const told = (): [string, string][] => events.flatMap((e) => (e.type === 'message' && e.kind === 'notice' ? [[e.notice, e.text] as [string, string]] : []));

  /** A turn whose read was running when the bot shut down: its result kept, the turn suspended `shutdown`. */
  async function shutDownDuringARead(extraConfig = ''): Promise<void> {
    const looked = deferred();
    target.reply({ hold: looked.promise, body: 'a white drink' });
    fake.enqueue(chatToolCalls([{ id: 'r1', name: 'lookup', args: '{"word":"milk"}' }]));
    const bot = intake(extraConfig);
    const reached = new Promise<void>((resolve) => (target.onRequest = () => resolve()));
    bot.submit(inboundFromText(harness.current.message('what is milk?')));
    await reached;
    const stopped = bot.shutdown();
    looked.resolve();
    await stopped;
  }

  it('continues by itself, telling the channel once, and the model reads the result kept before the shutdown', async () => {
    await shutDownDuringARead();
    expect(told()).toEqual([['suspended', 'The bot is restarting. Your request and the work done so far are saved: I will continue it once the bot is back.']]);
    fake.enqueue(chatText('Milk is a white drink.'));
    const again = intake();
    const queued = await again.continueAfterRestart(everyChannelOf('console'));
    await again.idle();
    expect(queued.size).toBe(1);
    expect(told().slice(1)).toEqual([['resumed', 'Continuing your request after a restart.']]);
    expect(harness.current.replies()).toEqual(['Milk is a white drink.']);
    expect(target.requests).toHaveLength(1);
  });

  it('leaves the turn to its requester with continue_after_restart: false, and says so at the shutdown', async () => {
    const off = 'turn_state:\n  continue_after_restart: false\n';
    await shutDownDuringARead(off);
    expect(told()).toEqual([['suspended', 'The bot is restarting. Your request and the work done so far are saved: type `resume` to continue it.']]);
    const again = intake(off);
    expect((await again.continueAfterRestart(everyChannelOf('console'))).size).toBe(0);
    await again.idle();
    expect(harness.current.replies()).toEqual([]);
    expect(fake.requests).toHaveLength(1);
  });

  it('leaves a turn of a channel this process does not serve, and one another resume took meanwhile, without a word', async () => {
    await shutDownDuringARead();
    const elsewhere = intake();
    expect((await elsewhere.continueAfterRestart({ source: 'console', serves: () => Promise.resolve(false) })).size).toBe(0);
    const { turns } = harness.current.store;
    const [saved] = await turns.listSuspended({ source: 'console', channelId: 'c1' });
    if (saved === undefined) throw new Error('nothing saved');
    // The requester's own `resume`, in another process, wins the turn while its message is read again.
    const racing = intake('', {
      source: {
        async fetchOriginal(ref) {
          await turns.claimResume(saved.turnId, saved.generation);
          return { authorId: ref.authorId, digest: ref.digest };
        },
      },
    });
    expect((await racing.continueAfterRestart(everyChannelOf('console'))).size).toBe(1);
    await racing.idle();
    expect(told()).toHaveLength(1);
    expect(fake.requests).toHaveLength(1);
  });
});
