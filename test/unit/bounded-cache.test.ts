import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BoundedCache } from '../../shared/core/bounded-cache.js';

describe('BoundedCache', () => {
  it('never holds more than its bound, and forgets the entry put in first', () => {
    const c = new BoundedCache<string, number>(2);
    c.set('a', 1);
    c.set('b', 2);
    c.set('c', 3);
    expect(c.size).toBe(2);
    expect(c.has('a')).toBe(false);
    expect([c.get('b'), c.get('c')]).toEqual([2, 3]);
    // Setting a key again makes it the newest: 'b' is now the oldest.
    c.set('c', 4);
    c.set('d', 5);
    expect(c.has('b')).toBe(false);
    expect(c.get('c')).toBe(4);
  });

  it('getOrSet builds once, and stores nothing when the build throws', () => {
    const c = new BoundedCache<string, number | null>(4);
    let builds = 0;
    const build = (v: number | null) => () => {
      builds++;
      return v;
    };
    expect(c.getOrSet('x', build(null))).toBeNull();
    expect(c.getOrSet('x', build(1))).toBeNull();
    expect(builds).toBe(1);
    expect(() =>
      c.getOrSet('y', () => {
        throw new Error('bad type');
      }),
    ).toThrow('bad type');
    expect(c.has('y')).toBe(false);
  });

  it('any sequence of sets: at most max entries, the newest max distinct keys kept', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 8 }), fc.array(fc.integer({ min: 0, max: 20 }), { maxLength: 60 }), (max, keys) => {
        const c = new BoundedCache<number, number>(max);
        for (const [i, k] of keys.entries()) c.set(k, i);
        const newest: number[] = [];
        for (let i = keys.length - 1; i >= 0 && newest.length < max; i--) if (!newest.includes(keys[i]!)) newest.push(keys[i]!);
        expect(c.size).toBe(newest.length);
        for (const k of newest) expect(c.get(k)).toBe(keys.lastIndexOf(k));
      }),
    );
  });

  it('refuses a bound below one', () => {
    expect(() => new BoundedCache(0)).toThrow(/at least 1/);
  });
});
