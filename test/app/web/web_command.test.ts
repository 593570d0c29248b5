import { type AddressInfo, createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { startProgram, type BackgroundProgram } from '../../support/background_program.js';
import { chatText } from '../../support/fake_llm/openai_chat.js';
import { FakeLLMServer } from '../../support/fake_llm/server.js';
import { runCliIn } from '../../support/operator_cli.js';
import { isReply, startJsonLinesProgram, useProgramsKilledAfterEach, whenReading } from '../../support/program.js';
import { useTempDir } from '../../support/temp_dir.js';

const TOKEN = 'a-console-token-0123456789';

// Real processes: generous limits that only catch hangs.
describe('holdfast web: the console served alone over the store', { timeout: 60_000 }, () => {
  const temp = useTempDir();
  const trackBot = useProgramsKilledAfterEach();
  const track = useProgramsKilledAfterEach<BackgroundProgram>();

  function configFile(baseUrl: string, web: string): string {
    return temp.write('config.yml', `llm:\n  provider: openai\n  base_url: ${baseUrl}\n  model: test-model\nlogging:\n  level: info\n  format: json\n${web}`);
  }

  /** The store a bot leaves after answering one message in the console and stopping. */
  async function storeOfStoppedBot(config: string): Promise<void> {
    const bot = trackBot(startJsonLinesProgram(['--config', config], { cwd: temp.path(), env: { PATH: process.env['PATH'], HOLDFAST_WEB_TOKEN: TOKEN } }));
    await whenReading(bot);
    bot.send('What is milk?');
    await bot.waitFor(isReply);
    bot.endInput();
    expect(await bot.exited).toBe(0);
  }

  it('lists a stopped bot’s turn after a login, until SIGTERM ends it with status 0, and never logs the token', async () => {
    const fake = await FakeLLMServer.start();
    try {
      fake.enqueue(chatText('Milk is a drink.'));
      const config = configFile(fake.baseUrl, `web:\n  listen: 127.0.0.1:0\n  token: \${HOLDFAST_WEB_TOKEN}\n`);
      await storeOfStoppedBot(config);

      const web = track(startProgram(['web', '--config', config], { cwd: temp.path(), env: { PATH: process.env['PATH'], HOLDFAST_WEB_TOKEN: TOKEN } }));
      await web.logged('"msg":"web console at http://127.0.0.1:');
      const url = /web console at (http:\/\/127\.0\.0\.1:\d+)/.exec(web.stderr())?.[1] ?? '';
      const login = await fetch(`${url}/login`, { method: 'POST', redirect: 'manual', body: new URLSearchParams({ name: 'ana', token: TOKEN }) });
      const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
      const page = await (await fetch(`${url}/`, { headers: { cookie } })).text();
      expect(page).toContain('console:console');
      expect(page).toContain('completed');
      await web.logged('web:ana logged in to the web console');

      web.kill('SIGTERM');
      expect(await web.exited).toBe(0);
      expect(web.stderr()).not.toContain(TOKEN);
      await expect(fetch(`${url}/login`)).rejects.toThrow();
    } finally {
      await fake.close();
    }
  });

  it('needs web.listen, the console’s token and a free address, while turns list needs no token', async () => {
    const fake = await FakeLLMServer.start();
    try {
      fake.enqueue(chatText('Milk is a drink.'));
      const config = configFile(fake.baseUrl, `web:\n  listen: 127.0.0.1:0\n  token: \${HOLDFAST_WEB_TOKEN}\n`);
      await storeOfStoppedBot(config);

      expect(await runCliIn(temp.path(), ['turns', 'list', '--status', 'completed', '--config', config])).toMatchObject({ status: 0, stderr: '' });
      const untokened = await runCliIn(temp.path(), ['web', '--config', config]);
      expect(untokened.status).toBe(2);
      expect(untokened.stderr).toMatch(/^holdfast: .*config\.yml:\d+:\d+: web\.token: environment variable HOLDFAST_WEB_TOKEN is not set\n$/);

      const unset = configFile(fake.baseUrl, '');
      expect(await runCliIn(temp.path(), ['web', '--config', unset])).toEqual({ status: 2, stdout: '', stderr: 'holdfast: web.listen is not set in the configuration: there is nothing to serve\n' });

      const taken = createServer();
      await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
      try {
        const port = (taken.address() as AddressInfo).port;
        const busy = configFile(fake.baseUrl, `web:\n  listen: 127.0.0.1:${port}\n`);
        const refused = await runCliIn(temp.path(), ['web', '--config', busy]);
        expect(refused.status).toBe(2);
        expect(refused.stderr).toMatch(new RegExp(`^holdfast: web\\.listen 127\\.0\\.0\\.1:${port}: cannot listen there: listen EADDRINUSE`, 'm'));
      } finally {
        await new Promise<void>((resolve) => taken.close(() => resolve()));
      }
    } finally {
      await fake.close();
    }
  });
});
