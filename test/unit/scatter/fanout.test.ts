import { describe, expect, it } from 'vitest';
import { fc, test as fcTest } from '@fast-check/vitest';
import { createLimiter } from '../../../shared/core/scatter/fanout.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('createLimiter', () => {
  fcTest.prop([fc.integer({ min: 1, max: 8 }), fc.array(fc.integer({ min: 0, max: 5 }), { minLength: 1, maxLength: 40 })], { numRuns: 25 })(
    'never runs more than the cap at once, and runs everything',
    async (cap, delays) => {
      const lim = createLimiter(cap);
      let active = 0;
      let peak = 0;
      const out = await Promise.all(
        delays.map((d, i) =>
          lim.run(async () => {
            active++;
            peak = Math.max(peak, active);
            await sleep(d);
            active--;
            return i;
          }),
        ),
      );
      expect(out).toEqual(delays.map((_, i) => i));
      expect(peak).toBeLessThanOrEqual(cap);
      expect(lim.active).toBe(0);
    },
  );

  it('a queued task whose signal aborts never starts; a failing task frees its slot', async () => {
    const lim = createLimiter(1);
    let started = 0;
    const first = lim.run(async () => {
      started++;
      await sleep(30);
      throw new Error('boom');
    });
    const ctl = new AbortController();
    const second = lim.run(async () => {
      started++;
    }, ctl.signal);
    expect(lim.queued).toBe(1);
    ctl.abort(new Error('deadline'));
    await expect(second).rejects.toThrow('deadline');
    await expect(first).rejects.toThrow('boom');
    expect(started).toBe(1);
    await expect(lim.run(async () => 'next')).resolves.toBe('next');
  });

  it('submit starts a task at once when a slot is free, queues it otherwise, and abandons it if its signal fires first', () => {
    const lim = createLimiter(1);
    const log: string[] = [];
    const task = (name: string) => ({ start: () => log.push(`start ${name}`), abandon: (r: unknown) => log.push(`abandon ${name}: ${(r as Error).message}`) });
    lim.submit(task('a'));
    expect(log).toEqual(['start a']); // synchronously
    const ctl = new AbortController();
    lim.submit(task('b'), ctl.signal);
    lim.submit(task('c'));
    expect([lim.active, lim.queued]).toEqual([1, 2]);
    ctl.abort(new Error('deadline'));
    expect(lim.queued).toBe(1);
    lim.release(); // a is done: c gets the slot, b never starts
    expect(log).toEqual(['start a', 'abandon b: deadline', 'start c']);
    lim.release();
    expect([lim.active, lim.queued]).toEqual([0, 0]);
    const aborted = new AbortController();
    aborted.abort(new Error('late'));
    lim.submit(task('d'), aborted.signal);
    expect(log.at(-1)).toBe('abandon d: late');
    expect(lim.active).toBe(0);
  });
});
