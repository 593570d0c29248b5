import { describe, expect, it } from 'vitest';
import { parseConfigText } from '../../src/app/config_schema.js';
import { configProblems } from '../support/config_problems.js';

describe('the metrics section', () => {
  it('is off by default: no address to listen at', () => {
    expect(parseConfigText('', 'c.yml', {}).metrics).toEqual({});
  });

  it('takes host:port, a host name, port 0, and a bracketed IPv6 address', () => {
    const listen = (text: string) => parseConfigText(`metrics:\n  listen: "${text}"\n`, 'c.yml', {}).metrics.listen;
    expect(listen('127.0.0.1:9464')).toEqual({ host: '127.0.0.1', port: 9464 });
    expect(listen('localhost:0')).toEqual({ host: 'localhost', port: 0 });
    expect(listen('[::1]:9464')).toEqual({ host: '::1', port: 9464 });
  });

  it('refuses what is not host:port, naming the key and the expected form', () => {
    const expected = 'expected host:port, e.g. 127.0.0.1:9464 ([::1]:9464 for IPv6; port 0 takes any free port)';
    for (const bad of ['9464', '127.0.0.1', '127.0.0.1:99999', ':9464', 'http://127.0.0.1:9464', '::1:9464', '[nope]:9464', '127.0.0.1:port']) {
      expect(configProblems(`metrics:\n  listen: "${bad}"\n`), bad).toEqual([`c.yml:2:11: metrics.listen: ${expected}`]);
    }
    expect(configProblems('metrics:\n  port: 9464\n')).toEqual(['c.yml:2:3: metrics.port: unknown key (expected one of: listen)']);
  });
});
