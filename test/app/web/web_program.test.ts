import { describe, expect, it } from 'vitest';
import { chatText } from '../../support/fake_llm/openai_chat.js';
import { FakeLLMServer } from '../../support/fake_llm/server.js';
import { isReply, startJsonLinesProgram, useProgramsKilledAfterEach, whenReading } from '../../support/program.js';
import { useTempDir } from '../../support/temp_dir.js';

const TOKEN = 'a-console-token-0123456789';

// Real processes: generous limits that only catch hangs.
describe('the program serving the web console', { timeout: 60_000 }, () => {
  const temp = useTempDir();
  const track = useProgramsKilledAfterEach();

  function configFile(baseUrl: string, listen: string): string {
    return temp.write(
      'config.yml',
      `llm:\n  provider: openai\n  base_url: ${baseUrl}\n  model: test-model\nlogging:\n  level: info\n  format: json\nweb:\n  listen: ${listen}\n  token: \${HOLDFAST_WEB_TOKEN}\n`,
    );
  }

  it('serves the console where web.listen says, lists the turn it just answered, and never logs the token', async () => {
    const fake = await FakeLLMServer.start();
    try {
      fake.enqueue(chatText('Milk is a drink.'));
      const bot = track(startJsonLinesProgram(['--config', configFile(fake.baseUrl, '127.0.0.1:0')], { cwd: temp.path(), env: { PATH: process.env['PATH'], HOLDFAST_WEB_TOKEN: TOKEN } }));
      await whenReading(bot);
      await bot.logged('"component":"web"');
      const url = /web console at (http:\/\/127\.0\.0\.1:\d+)/.exec(bot.stderr())?.[1] ?? '';
      bot.send('What is milk?');
      await bot.waitFor(isReply);

      const login = await fetch(`${url}/login`, { method: 'POST', redirect: 'manual', body: new URLSearchParams({ name: 'ana', token: TOKEN }) });
      const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
      const page = await (await fetch(`${url}/`, { headers: { cookie } })).text();
      expect(page).toContain('console:console');
      expect(page).toContain('completed');
      await bot.logged('web:ana logged in to the web console');

      bot.endInput();
      expect(await bot.exited).toBe(0);
      expect(bot.stderr()).not.toContain(TOKEN);
    } finally {
      await fake.close();
    }
  });
});
