// Cursors are signed: a cursor verifies only under the key it was issued with, the key comes from
// the coordinator's environment (or its Secrets Manager secret), and a short key is refused.
import { describe, expect, it } from 'vitest';
import { cursorKeyOf, decodeCursor, encodeCursor } from '../../../shared/core/partials/cursor.js';
import { cursorKeyFromEnv } from '../../../functions/coordinator/deps.js';

describe('cursor keys', () => {
  it('verifies under its own key only', async () => {
    const env = await cursorKeyFromEnv({ CH_SCATTER_CURSOR_KEY: 'k1-0123456789abcdef' });
    expect(env.source).toBe('env');
    const k1 = env.key!;
    const c = encodeCursor('shape', [{ json: '42', type: 'UInt64' }], 1, k1);
    expect(decodeCursor(c, 'shape', 1, k1).keys).toEqual([{ json: '42', type: 'UInt64' }]);
    const k2 = cursorKeyOf('k2-0123456789abcdef'); // another deployment, or a rotated key
    expect(() => decodeCursor(c, 'shape', 1, k2)).toThrow(expect.objectContaining({ code: 'BAD_CURSOR', status: 400 }));
    // Without a key the process's own: not the deployment's.
    expect(() => decodeCursor(c, 'shape', 1)).toThrow(expect.objectContaining({ code: 'BAD_CURSOR', status: 400 }));
    expect(decodeCursor(c, 'shape', 1, cursorKeyOf('k1-0123456789abcdef')).dup).toBe(1);
  });
  it('without a configured key: random per process', async () => {
    expect(await cursorKeyFromEnv({})).toEqual({ source: 'random' });
    const c = encodeCursor('shape', [{ json: '1', type: 'UInt64' }]);
    expect(decodeCursor(c, 'shape', 1).dup).toBe(1);
  });
  it('refuses a key shorter than 16 bytes', () => {
    expect(() => cursorKeyOf('short')).toThrow(/at least 16 bytes/);
  });
});
