import { describe, expect, it } from 'vitest';
import { parseCliArgs } from '../../src/app/args.js';

describe('parseCliArgs', () => {
  it('defaults every flag to off', () => {
    expect(parseCliArgs([])).toEqual({ ok: true, args: { console: false, jsonl: false, help: false, version: false } });
  });

  it('reads --config in both spellings, and the short and long flags', () => {
    expect(parseCliArgs(['--config', 'a.yml', '--console'])).toEqual({ ok: true, args: { configPath: 'a.yml', console: true, jsonl: false, help: false, version: false } });
    expect(parseCliArgs(['--config=b.yml', '-h', '-v'])).toEqual({ ok: true, args: { configPath: 'b.yml', console: false, jsonl: false, help: true, version: true } });
  });

  it('makes --jsonl imply the console', () => {
    expect(parseCliArgs(['--jsonl'])).toMatchObject({ ok: true, args: { console: true, jsonl: true } });
  });

  it('refuses unknown options, stray arguments, a --config without a path and a repeated --config', () => {
    expect(parseCliArgs(['--verbose'])).toEqual({ ok: false, error: "unknown option '--verbose'" });
    expect(parseCliArgs(['start'])).toEqual({ ok: false, error: "unexpected argument 'start'" });
    expect(parseCliArgs(['--config'])).toEqual({ ok: false, error: '--config needs a file path' });
    expect(parseCliArgs(['--config', '--console'])).toEqual({ ok: false, error: '--config needs a file path' });
    expect(parseCliArgs(['--config='])).toEqual({ ok: false, error: '--config needs a file path' });
    expect(parseCliArgs(['--config', 'a', '--config', 'b'])).toEqual({ ok: false, error: '--config is given more than once' });
  });

  it('takes short flags together, an end of options, and names the flag given a value it does not take', () => {
    expect(parseCliArgs(['-hv'])).toEqual({ ok: true, args: { console: false, jsonl: false, help: true, version: true } });
    expect(parseCliArgs(['--jsonl', '--'])).toMatchObject({ ok: true, args: { console: true, jsonl: true } });
    expect(parseCliArgs(['--', '--console'])).toEqual({ ok: false, error: "unexpected argument '--console'" });
    expect(parseCliArgs(['--console=yes'])).toEqual({ ok: false, error: '--console takes no value' });
    expect(parseCliArgs(['-hx'])).toEqual({ ok: false, error: "unknown option '-x'" });
  });
});
