import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { chatText } from '../support/fake_llm/openai_chat.js';
import { FakeLLMServer } from '../support/fake_llm/server.js';
import { isNotice, isReply, startJsonLinesProgram, useProgramsKilledAfterEach } from '../support/program.js';
import { useTempDir } from '../support/temp_dir.js';

// A real process: a generous limit that only catches hangs.
describe('/usage typed in the console, as a child process', { timeout: 60_000 }, () => {
  const temp = useTempDir();
  const track = useProgramsKilledAfterEach();
  let fake: FakeLLMServer;

  beforeEach(async () => {
    fake = await FakeLLMServer.start();
  });
  afterEach(async () => {
    await fake.close();
  });

  it('answers with what the console’s user spent today and this month, priced by llm.prices, and the limits on them', async () => {
    const llm = `llm:\n  provider: openai\n  base_url: ${fake.baseUrl}\n  model: test-model\n  prices:\n    test-model: { input: 2, output: 8 }\n`;
    const config = temp.write('config.yml', `${llm}limits:\n  per_user: { tokens_per_day: 50000 }\nlogging:\n  level: warn\n`);
    fake.enqueue(chatText('Milk is white.', { usage: { prompt_tokens: 1000, completion_tokens: 200 } }));
    const bot = track(startJsonLinesProgram(['--config', config], { cwd: temp.path() }));
    await bot.waitFor((event) => event['type'] === 'ready');
    bot.send('what colour is milk?');
    await bot.waitFor(isReply);
    bot.send('/usage');
    const answer = await bot.waitFor(isNotice('status'));
    expect(answer['text']).toBe(
      [
        'Your use of the bot:',
        '• Today (UTC): 1 request, 1,200 tokens (1,000 in; 200 out), cost 0.0036',
        '• This month: 1 request, 1,200 tokens (1,000 in; 200 out), cost 0.0036',
        'Limits here: 50,000 tokens per 24 hours for you.',
      ].join('\n'),
    );
    bot.endInput();
    expect(await bot.exited).toBe(0);
  });
});
