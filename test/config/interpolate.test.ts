import { describe, expect, it } from 'vitest';
import { interpolateEnvironment } from '../../src/config/interpolate.js';

describe('interpolateEnvironment', () => {
  const env = { DISCORD_TOKEN: 'tok', EMPTY: '', REGION: 'eu' };

  it('replaces ${VAR} in strings at any depth and leaves keys and other values alone', () => {
    const result = interpolateEnvironment({ discord: { token: '${DISCORD_TOKEN}' }, list: ['a-${REGION}-b', 3, true, null], '${REGION}': 'key kept' }, env);
    expect(result.problems).toEqual([]);
    expect(result.value).toEqual({ discord: { token: 'tok' }, list: ['a-eu-b', 3, true, null], '${REGION}': 'key kept' });
  });

  it('uses the fallback of ${VAR:-fallback} when the variable is unset or empty', () => {
    const result = interpolateEnvironment({ a: '${MISSING:-x}', b: '${EMPTY:-y}', c: '${REGION:-z}', d: '${MISSING:-}' }, env);
    expect(result).toMatchObject({ value: { a: 'x', b: 'y', c: 'eu', d: '' }, problems: [] });
  });

  it('reads $${ as a literal ${ and a lone $ as itself', () => {
    const result = interpolateEnvironment({ a: 'cost $5, literal $${REGION}' }, env);
    expect(result).toEqual({ value: { a: 'cost $5, literal ${REGION}' }, problems: [], filled: [], excused: [] });
  });

  it('keeps an empty variable that is set, since ${VAR} only fails when VAR is unset', () => {
    expect(interpolateEnvironment({ a: '[${EMPTY}]' }, env)).toMatchObject({ value: { a: '[]' }, problems: [] });
  });

  it('lists every string that held a reference, as written, with the variables the environment supplied for it and those it found unset or empty', () => {
    const result = interpolateEnvironment({ discord: { token: '${DISCORD_TOKEN}' }, list: ['a-${REGION}-${EMPTY:-z}', 'plain', '$${REGION}'], b: '${MISSING:-x}', c: '${EMPTY}' }, env);
    expect(result.filled).toEqual([
      { path: ['discord', 'token'], template: '${DISCORD_TOKEN}', variables: [{ name: 'DISCORD_TOKEN', value: 'tok' }], unset: [] },
      { path: ['list', 0], template: 'a-${REGION}-${EMPTY:-z}', variables: [{ name: 'REGION', value: 'eu' }], unset: ['EMPTY'] },
      { path: ['b'], template: '${MISSING:-x}', variables: [], unset: ['MISSING'] },
      { path: ['c'], template: '${EMPTY}', variables: [{ name: 'EMPTY', value: '' }], unset: ['EMPTY'] },
    ]);
  });

  it('names the variable and the key path of every missing variable', () => {
    const result = interpolateEnvironment({ discord: { token: '${NO_TOKEN}' }, tools: { http: [{ url: '${NO_URL}/x' }] } }, env);
    expect(result.problems).toEqual([
      { kind: 'missing_env', path: ['discord', 'token'], message: 'environment variable NO_TOKEN is not set' },
      { kind: 'missing_env', path: ['tools', 'http', 0, 'url'], message: 'environment variable NO_URL is not set' },
    ]);
  });

  it('excuses a missing variable where the caller does not need it, filling in the empty string', () => {
    const result = interpolateEnvironment({ discord: { token: '${NO_TOKEN}' }, turn_state: { db_path: '${NO_PATH}' } }, env, (path) => path[0] === 'turn_state');
    expect(result.value).toEqual({ discord: { token: '' }, turn_state: { db_path: '' } });
    expect(result.problems).toEqual([{ kind: 'missing_env', path: ['turn_state', 'db_path'], message: 'environment variable NO_PATH is not set' }]);
    expect(result.excused).toEqual([{ kind: 'missing_env', path: ['discord', 'token'], message: 'environment variable NO_TOKEN is not set' }]);
  });

  it('never excuses a malformed reference, needed or not', () => {
    const result = interpolateEnvironment({ discord: { token: '${not a name}' } }, env, () => false);
    expect(result.problems).toEqual([{ kind: 'bad_reference', path: ['discord', 'token'], message: '"${not a name}" is not a variable reference (expected ${NAME} or ${NAME:-default})' }]);
    expect(result.excused).toEqual([]);
  });

  it('rejects malformed references with what was expected', () => {
    const result = interpolateEnvironment({ a: '${not a name}', b: 'x ${OPEN' }, env);
    expect(result.problems).toEqual([
      { kind: 'bad_reference', path: ['a'], message: '"${not a name}" is not a variable reference (expected ${NAME} or ${NAME:-default})' },
      { kind: 'bad_reference', path: ['b'], message: '"${OPEN" has no closing "}"' },
    ]);
  });
});
