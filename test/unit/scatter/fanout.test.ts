import { describe, expect, it } from 'vitest';
import { fc, test as fcTest } from '@fast-check/vitest';
import { createLimiter } from '../../../core/scatter/fanout.js';

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
});
