import { describe, expect, it } from 'vitest';
import { parseConfigText } from '../../src/app/config_schema.js';
import { configProblems } from '../support/config_problems.js';

describe('the web section', () => {
  it('is off by default, and listens where it is told, with its token from the environment', () => {
    expect(parseConfigText('', 'c.yml', {}).web).toEqual({});
    const web = parseConfigText('web:\n  listen: 0.0.0.0:9470\n  token: ${HOLDFAST_WEB_TOKEN}\n', 'c.yml', { HOLDFAST_WEB_TOKEN: 'a-long-enough-token' }).web;
    expect(web).toEqual({ listen: { host: '0.0.0.0', port: 9470 }, token: 'a-long-enough-token' });
    expect(parseConfigText('web:\n  listen: "[::1]:0"\n', 'c.yml', {}).web).toEqual({ listen: { host: '::1', port: 0 } });
    expect(parseConfigText('web:\n  listen: localhost:9470\n', 'c.yml', {}).web).toEqual({ listen: { host: 'localhost', port: 9470 } });
    expect(parseConfigText('web:\n  listen: 127.0.0.2:9470\n', 'c.yml', {}).web).toEqual({ listen: { host: '127.0.0.2', port: 9470 } });
  });

  it('refuses to listen beyond this machine without a token, a short token, and what is not host:port, naming the key', () => {
    expect(configProblems('web:\n  listen: 0.0.0.0:9470\n')).toEqual(['c.yml:2:3: web.token: the console would listen on 0.0.0.0, beyond this machine: give it a token']);
    expect(configProblems('web:\n  listen: 127.0.0.1:9470\n  token: short\n')).toEqual(['c.yml:3:10: web.token: a token needs at least 16 characters']);
    expect(configProblems('web:\n  listen: "9470"\n')).toEqual(['c.yml:2:11: web.listen: expected host:port, e.g. 127.0.0.1:9470 ([::1]:9470 for IPv6; port 0 takes any free port)']);
  });
});
