import { PassThrough, Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../../src/app/run.js';
import { metricsUrlIn } from '../../support/prometheus_text.js';
import { useTempDir } from '../../support/temp_dir.js';

describe('metrics for a bot with no model configured yet', () => {
  const temp = useTempDir();

  it('serves /metrics and /readyz, with no model breaker to show, until the bot stops', async () => {
    temp.write('config.yml', 'metrics:\n  listen: 127.0.0.1:0\n');
    const stdin = new PassThrough();
    let stderr = '';
    let listening: () => void = () => undefined;
    const serving = new Promise<void>((resolve) => (listening = resolve));
    const err = new Writable({
      write(chunk: Buffer, _encoding, done) {
        stderr += chunk.toString('utf8');
        if (stderr.includes('health at /healthz and /readyz"}')) listening();
        done();
      },
    });
    const out: string[] = [];
    const running = runCli(['--jsonl'], { stdin, stdout: { write: (text: string) => out.push(text) }, stderr: err, env: {}, cwd: temp.path() });
    await serving;
    const url = metricsUrlIn(stderr) ?? '';

    const metrics = await (await fetch(`${url}/metrics`)).text();
    const ready = await fetch(`${url}/readyz`);
    stdin.end();

    expect(await running).toBe(0);
    expect(metrics).toContain('holdfast_turns_total');
    expect(metrics.split('\n').filter((line) => line.startsWith('holdfast_breaker_open{'))).toEqual([]);
    expect({ status: ready.status, body: await ready.json() }).toEqual({ status: 200, body: { ready: true } });
  });
});
