import { describe, expect, it } from 'vitest';
import { REDACTED } from '../../src/core/sensitive_keys.js';
import { scrubJsonText, scrubSecrets, scrubText } from '../../src/turn_state/scrub.js';

// Fixtures are assembled from pieces so that no complete credential sits in the source.
const openAiKey = 'sk-' + 'T3BlbkFJ'.repeat(6);
const openAiProjectKey = 'sk-proj-' + 'aB3_cD4-'.repeat(8);
const anthropicKey = 'sk-ant-api03-' + 'Xy9_Zw8-'.repeat(10);
const githubClassic = 'ghp_' + 'a1B2c3D4e5F6'.repeat(3);
const githubOAuth = 'gho_' + 'Q9w8E7r6T5y4'.repeat(3);
const githubFineGrained = 'github_pat_11ABCDEFG0' + '_abcDEF123456'.repeat(6);
const slackToken = 'xoxb-' + '123456789012-1234567890123-' + 'AbCdEfGhIjKlMnOpQrStUvWx';
const awsKeyId = 'AKIA' + 'IOSFODNN7EXAMPLE';
const jwt = 'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9' + '.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkFkYSJ9' + '.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c';
const discordToken = 'MTA5ODc2NTQzMjEwOTg3NjU0' + '.GhIjKl.' + 'abcdefghijklmnopqrstuvwxyz0123456789AB';
const googleKey = 'AIza' + 'SyA1234567890abcdefghijklmnopqrstuv';
const bearerToken = 'mF_9.B5f-4.1JqM';
const basicCredential = Buffer.from('ada:correct horse').toString('base64');

describe('scrubText', () => {
  it.each([
    ['an OpenAI key', openAiKey],
    ['an OpenAI project key', openAiProjectKey],
    ['an Anthropic key', anthropicKey],
    ['a classic GitHub token', githubClassic],
    ['a GitHub OAuth token', githubOAuth],
    ['a fine-grained GitHub token', githubFineGrained],
    ['a Slack token', slackToken],
    ['an AWS access key id', awsKeyId],
    ['a JWT', jwt],
    ['a Discord bot token', discordToken],
    ['a Google API key', googleKey],
  ])('redacts %s inside prose', (_name, secret) => {
    expect(scrubText(`the key is ${secret}, keep it safe`)).toBe(`the key is ${REDACTED}, keep it safe`);
    expect(scrubText(`(${secret})`)).toBe(`(${REDACTED})`);
  });

  it('keeps the scheme word of Bearer and Basic credentials and redacts the credential', () => {
    expect(scrubText(`curl -H 'Authorization: Bearer ${bearerToken}' https://x`)).toBe(`curl -H 'Authorization: Bearer ${REDACTED}' https://x`);
    expect(scrubText(`send bearer ${jwt} now`)).toBe(`send bearer ${REDACTED} now`);
    expect(scrubText(`header "Basic ${basicCredential}" sent`)).toBe(`header "Basic ${REDACTED}" sent`);
  });

  it('redacts the password of a URL and keeps the user, host and path', () => {
    expect(scrubText('db at postgres://admin:s3cr%40t@db.example.com:5432/app today')).toBe(`db at postgres://admin:${REDACTED}@db.example.com:5432/app today`);
    expect(scrubText('cache redis://:hunter2@cache:6379/0')).toBe(`cache redis://:${REDACTED}@cache:6379/0`);
  });

  it('redacts credential query parameters in URLs, whatever their case, and keeps the others', () => {
    expect(scrubText('GET https://api.example.com/v1?user=ada&api_key=abc123&page=2#top done')).toBe(`GET https://api.example.com/v1?user=ada&api_key=${REDACTED}&page=2#top done`);
    expect(scrubText('https://x.example/cb?Access_Token=zz9&state=s')).toBe(`https://x.example/cb?Access_Token=${REDACTED}&state=s`);
    expect(scrubText('https://b.s3.amazonaws.com/o?X-Amz-Signature=deadbeef&X-Amz-Date=20240101')).toBe(`https://b.s3.amazonaws.com/o?X-Amz-Signature=${REDACTED}&X-Amz-Date=20240101`);
    for (const name of ['token', 'key', 'password', 'secret', 'signature', 'client_secret', 'TOKEN']) {
      expect(scrubText(`https://h/p?q=1&${name}=v4lue`), name).toBe(`https://h/p?q=1&${name}=${REDACTED}`);
    }
  });

  it('redacts credential assignments in running text, such as an error body quoting a request', () => {
    expect(scrubText('rejected: invalid token=abc123def456 for this app')).toBe(`rejected: invalid token=${REDACTED} for this app`);
    expect(scrubText('The server said: {"detail":"api_key=k3y-v4lue, Password=hunter2"}')).toBe(`The server said: {"detail":"api_key=${REDACTED}, Password=${REDACTED}"}`);
    expect(scrubText('(access_token=zz9) x-api-key=abc')).toBe(`(access_token=${REDACTED}) x-api-key=${REDACTED}`);
    expect(scrubText('monkey=banana keyboard=qwerty tokens=3 mykey=1')).toBe('monkey=banana keyboard=qwerty tokens=3 mykey=1');
  });

  it('redacts values of sensitive keys written out as JSON members or header lines', () => {
    expect(scrubText('status 200 body {"user":"ada","password":"hunter2","author":"Ada"}')).toBe(`status 200 body {"user":"ada","password":"${REDACTED}","author":"Ada"}`);
    expect(scrubText('HTTP/1.1 200 OK\r\nSet-Cookie: session=abc; Path=/\r\nContent-Type: text/plain\r\n')).toBe(`HTTP/1.1 200 OK\r\nSet-Cookie: ${REDACTED}\r\nContent-Type: text/plain\r\n`);
    expect(scrubText('db:\n  password: hunter2\n  author: ada')).toBe(`db:\n  password: ${REDACTED}\n  author: ada`);
  });

  it('redacts a PEM private key block', () => {
    const pem = '-----BEGIN RSA PRIVATE KEY-----\nMIIEow\nIBAAK\n-----END RSA PRIVATE KEY-----';
    expect(scrubText(`key:\n${pem}\nend`)).toBe(`key:\n${REDACTED}\nend`);
  });

  it('leaves prose look-alikes alone', () => {
    for (const prose of [
      'a sky-blue task-1234 was risk-free at the desk-lamp',
      'the bearer of bad news; Bearer bonds; Basic Training covers basic usage',
      'ask-ant-hill and skip-proj-2 are names, not keys',
      'ghost_writer, github_page and xoxo-hugs',
      'AKIA is a prefix; eyJ is how base64 JSON starts',
      'Mr. Smith arrived at 10:30. He paid 4.50 at http://example.com:8080/a@b',
      'visit https://example.com/search?q=monkey&sort=keyboard&tokens=3',
      'author: Ada Lovelace\nmax_tokens: 1024\ntokens_used: 17',
      '{"author":"Ada","max_tokens":1024,"monkey":"banana"}',
    ]) {
      expect(scrubText(prose)).toBe(prose);
    }
  });

  it('is idempotent', () => {
    const once = scrubText(`Bearer ${bearerToken} ${openAiKey} https://u:p@h/?token=t {"secret":"s"}`);
    expect(scrubText(once)).toBe(once);
  });
});

describe('scrubSecrets', () => {
  it('redacts whole values under sensitive keys at any depth, whatever their type', () => {
    const input = {
      author: 'ada',
      tokens_used: 17,
      max_tokens: 1024,
      request: {
        headers: { Authorization: { scheme: 'Bearer', token: 't' }, 'x-api-key': 'k1', 'Content-Type': 'application/json' },
        llm: { api_keys: ['k2', 'k3'], model: 'm' },
      },
      calls: [{ args: { password: 'hunter2', city: 'Oslo' } }, [{ authorization: 'Basic abc', 'X-Api-Key': 7, client_secret: null }]],
      cookies: { Cookie: 'a=1', 'set-cookie': ['b=2'] },
    };
    expect(scrubSecrets(input)).toEqual({
      author: 'ada',
      tokens_used: 17,
      max_tokens: 1024,
      request: {
        headers: { Authorization: REDACTED, 'x-api-key': REDACTED, 'Content-Type': 'application/json' },
        llm: { api_keys: REDACTED, model: 'm' },
      },
      calls: [{ args: { password: REDACTED, city: 'Oslo' } }, [{ authorization: REDACTED, 'X-Api-Key': REDACTED, client_secret: REDACTED }]],
      cookies: { Cookie: REDACTED, 'set-cookie': REDACTED },
    });
  });

  it('scrubs token-shaped strings under ordinary keys and in lists, and keeps other values', () => {
    const input = { note: `use ${openAiKey} please`, list: ['plain', `Bearer ${bearerToken}`, 3, true, null] };
    expect(scrubSecrets(input)).toEqual({ note: `use ${REDACTED} please`, list: ['plain', `Bearer ${REDACTED}`, 3, true, null] });
    expect(scrubSecrets(`token ${githubClassic}`)).toBe(`token ${REDACTED}`);
    expect(scrubSecrets(42)).toBe(42);
    expect(scrubSecrets(null)).toBeNull();
  });

  it('never mutates its input and returns a fresh copy', () => {
    const input = { password: 'hunter2', nested: { list: [{ token: 't', text: `x ${awsKeyId}` }] } };
    const before = structuredClone(input);
    const output = scrubSecrets(input);
    expect(input).toEqual(before);
    expect(output).not.toBe(input);
    expect(output.nested).not.toBe(input.nested);
    expect(output.nested.list).not.toBe(input.nested.list);
  });

  it('keeps a parsed "__proto__" key as data', () => {
    const output = scrubSecrets(JSON.parse('{"__proto__":{"secret":"s","x":1}}') as Record<string, unknown>);
    expect(Object.getPrototypeOf(output)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(output, '__proto__')?.value).toEqual({ secret: REDACTED, x: 1 });
  });

  it('survives a cycle', () => {
    const cyclic: Record<string, unknown> = { token: 't' };
    cyclic['self'] = cyclic;
    expect(scrubSecrets(cyclic)).toEqual({ token: REDACTED, self: '[Circular]' });
  });
});

describe('scrubJsonText', () => {
  it('scrubs JSON objects and arrays as data', () => {
    const text = JSON.stringify({ ok: true, headers: { Authorization: 'Bearer x' }, out: `key ${googleKey}` }, null, 2);
    expect(JSON.parse(scrubJsonText(text))).toEqual({ ok: true, headers: { Authorization: REDACTED }, out: `key ${REDACTED}` });
    expect(scrubJsonText(' [{"api_key":"k"}, "ok"]')).toBe(`[{"api_key":"${REDACTED}"},"ok"]`);
  });

  it('scrubs JSON held in a string value of a JSON document', () => {
    const text = JSON.stringify({ body: JSON.stringify({ password: 'hunter2', user: 'ada' }) });
    expect(JSON.parse(scrubJsonText(text))).toEqual({ body: JSON.stringify({ password: REDACTED, user: 'ada' }) });
  });

  it('scrubs plain text, broken JSON and JSON scalars as text', () => {
    expect(scrubJsonText(`done with ${slackToken}`)).toBe(`done with ${REDACTED}`);
    expect(scrubJsonText(`{"password":"hunter2", oops ${openAiKey}`)).toBe(`{"password":"${REDACTED}", oops ${REDACTED}`);
    expect(scrubJsonText(JSON.stringify(`x ${jwt}`))).toBe(`"x ${REDACTED}"`);
    expect(scrubJsonText('42')).toBe('42');
  });
});
