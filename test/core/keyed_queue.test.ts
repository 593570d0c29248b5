import { describe, expect, it } from 'vitest';
import { KeyedSerialQueue } from '../../src/core/keyed_queue.js';
import { deferred } from '../support/deferred.js';

describe('KeyedSerialQueue', () => {
  it('runs one key’s jobs one at a time, in the order they were queued', async () => {
    const queue = new KeyedSerialQueue();
    const log: string[] = [];
    const first = deferred();
    const a = queue.run('k', async () => {
      log.push('a start');
      await first.promise;
      log.push('a end');
      return 'a';
    });
    const b = queue.run('k', () => {
      log.push('b');
      return Promise.resolve('b');
    });
    await Promise.resolve();
    await Promise.resolve();
    expect(log).toEqual(['a start']);
    expect(queue.size('k')).toBe(2);
    first.resolve();
    expect(await Promise.all([a, b])).toEqual(['a', 'b']);
    expect(log).toEqual(['a start', 'a end', 'b']);
  });

  it('lets other keys pass a key that is busy', async () => {
    const queue = new KeyedSerialQueue();
    const blocked = deferred();
    const slow = queue.run('slow', () => blocked.promise);
    expect(await queue.run('fast', () => Promise.resolve('through'))).toBe('through');
    blocked.resolve();
    await slow;
  });

  it('fails only the failing job’s promise; the jobs behind it still run', async () => {
    const queue = new KeyedSerialQueue();
    const failing = queue.run('k', () => Promise.reject(new Error('boom')));
    const next = queue.run('k', () => Promise.resolve('next'));
    await expect(failing).rejects.toThrow('boom');
    expect(await next).toBe('next');
  });

  it('treats a job that throws at once like one that rejects', async () => {
    const queue = new KeyedSerialQueue();
    const thrown = queue.run('k', () => {
      throw new Error('sync');
    });
    await expect(thrown).rejects.toThrow('sync');
    expect(await queue.run('k', () => Promise.resolve(1))).toBe(1);
  });

  it('counts the jobs queued or running under a key, until each has finished', async () => {
    const queue = new KeyedSerialQueue();
    const running = deferred();
    const first = queue.run('k', () => running.promise);
    const second = queue.run('k', () => Promise.resolve());
    expect(queue.size('k')).toBe(2);
    expect(queue.size('other')).toBe(0);
    running.resolve();
    await Promise.all([first, second]);
    await queue.idle();
    expect(queue.size('k')).toBe(0);
  });

  it('is idle at once when nothing is queued, and otherwise once every key, including jobs queued meanwhile, has finished', async () => {
    const queue = new KeyedSerialQueue();
    await queue.idle();
    const log: string[] = [];
    const gate = deferred();
    void queue.run('a', async () => {
      await gate.promise;
      log.push('a');
      void queue.run('b', () => {
        log.push('b');
        return Promise.resolve();
      });
    });
    const idle = queue.idle().then(() => log.push('idle'));
    gate.resolve();
    await idle;
    expect(log).toEqual(['a', 'b', 'idle']);
    expect(queue.size('a') + queue.size('b')).toBe(0);
  });
});
