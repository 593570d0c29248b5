import { describe, expect, it } from 'vitest';
import { InOrder } from '../../src/discord/in_order.js';
import { deferred } from '../support/deferred.js';

describe('messages handed on in the order they arrived, per channel', () => {
  function recorder(): { readonly order: InOrder<string>; readonly delivered: string[]; readonly errors: unknown[] } {
    const delivered: string[] = [];
    const errors: unknown[] = [];
    return {
      order: new InOrder<string>(
        (value) => void delivered.push(value),
        (error) => void errors.push(error),
      ),
      delivered,
      errors,
    };
  }

  it('hands a ready message on at once when nothing in its channel is pending', () => {
    const { order, delivered } = recorder();
    order.push('c1', 'hello');
    expect(delivered).toEqual(['hello']);
  });

  it('holds a channel’s later messages behind one whose attachments are still downloading, and lets other channels pass', async () => {
    const { order, delivered } = recorder();
    const download = deferred<string>();
    order.push('c1', download.promise);
    order.push('c1', 'what is in it?');
    order.push('c2', 'elsewhere');
    expect(delivered).toEqual(['elsewhere']);
    download.resolve('picture');
    await order.idle();
    expect(delivered).toEqual(['elsewhere', 'picture', 'what is in it?']);
    order.push('c1', 'later');
    expect(delivered.at(-1)).toBe('later');
  });

  it('reports a preparation that failed and still hands on the messages after it', async () => {
    const { order, delivered, errors } = recorder();
    const broken = deferred<string>();
    order.push('c1', broken.promise);
    order.push('c1', 'next');
    broken.reject(new Error('disk full'));
    await order.idle();
    expect(delivered).toEqual(['next']);
    expect(errors).toEqual([new Error('disk full')]);
  });
});

describe('a delivery that throws', () => {
  it('is reported, and the messages after it are still handed on', async () => {
    const delivered: string[] = [];
    const errors: unknown[] = [];
    const order = new InOrder<string>(
      (value) => {
        if (value === 'bad') throw new Error('cannot hand on');
        delivered.push(value);
      },
      (error) => void errors.push(error),
    );
    order.push('c1', 'bad');
    order.push('c1', Promise.resolve('bad'));
    order.push('c1', 'after');
    await order.idle();
    expect(delivered).toEqual(['after']);
    expect(errors).toEqual([new Error('cannot hand on'), new Error('cannot hand on')]);
  });
});
