import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../support/manual_clock.js';
import { runCliIn, storeIn } from '../../support/operator_cli.js';
import { useTempDir } from '../../support/temp_dir.js';

/** A bot's configuration whose secrets come from the environment, none of which an operator's shell has. */
const BOT_CONFIG = `discord:
  token: \${DISCORD_TOKEN}
llm:
  model: test-model
  api_key: \${OPENAI_API_KEY}
tools:
  http:
    - name: weather
      description: The forecast for a city.
      url: https://api.example.com/forecast/{city}
      effect: read
      headers: { Authorization: "Bearer \${WEATHER_TOKEN}" }
      parameters: { type: object, properties: { city: { type: string } }, required: [city] }
`;

describe('the operator commands read only the variables they need', () => {
  const temp = useTempDir();

  it('run without the Discord token, the API key or a tool’s header, and doctor names what the bot will need', async () => {
    temp.write('config.yml', BOT_CONFIG);
    await storeIn(temp.path(), new ManualClock()).close();

    for (const argv of [
      ['turns', 'list'],
      ['backup', 'copy.sqlite3'],
    ]) {
      const run = await runCliIn(temp.path(), argv);
      expect({ argv, status: run.status, stderr: run.stderr }).toEqual({ argv, status: 0, stderr: '' });
    }
    const doctor = await runCliIn(temp.path(), ['doctor']);
    expect(doctor.status).toBe(0);
    expect(doctor.stdout.split('\n').filter((line) => line.startsWith('note: '))).toEqual([
      'note: discord.token: environment variable DISCORD_TOKEN is not set here; the bot needs it where it runs',
      'note: llm.api_key: environment variable OPENAI_API_KEY is not set here; the bot needs it where it runs',
      'note: tools.http[0].headers.Authorization: environment variable WEATHER_TOKEN is not set here; the bot needs it where it runs',
    ]);
  });

  it('still name a variable they need, with status 2, as the bot names every one', async () => {
    temp.write('config.yml', `${BOT_CONFIG}turn_state:\n  db_path: \${STORE_PATH}\n`);

    const doctor = await runCliIn(temp.path(), ['doctor']);
    expect(doctor.status).toBe(2);
    expect(doctor.stderr).toMatch(/^holdfast: .*config\.yml:15:12: turn_state\.db_path: environment variable STORE_PATH is not set\n$/);

    const bot = await runCliIn(temp.path(), ['--jsonl']);
    expect(bot.status).toBe(2);
    expect(bot.stderr.match(/environment variable \w+ is not set/g)).toEqual([
      'environment variable DISCORD_TOKEN is not set',
      'environment variable OPENAI_API_KEY is not set',
      'environment variable WEATHER_TOKEN is not set',
      'environment variable STORE_PATH is not set',
    ]);
  });

  it('name a variable of another section after all when its absence breaks the configuration', async () => {
    temp.write('config.yml', 'tools:\n  mcp:\n    - name: tickets\n      url: ${TICKETS_URL}\n');

    const run = await runCliIn(temp.path(), ['turns', 'list']);
    expect(run.status).toBe(2);
    expect(run.stderr).toMatch(/^holdfast: .*config\.yml:4:\d+: tools\.mcp\[0\]\.url: environment variable TICKETS_URL is not set\n$/);
  });
});
