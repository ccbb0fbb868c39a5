// Cursors are signed: a cursor verifies only under the key it was issued with, the key comes from
// the coordinator's environment (or its Secrets Manager secret), and a short key is refused.
import { describe, expect, it } from 'vitest';
import { decodeCursor, encodeCursor, setCursorKey } from '../../../core/partials/cursor.js';
import { configureCursorKey } from '../../../functions/coordinator/deps.js';

describe('cursor keys', () => {
  it('verifies under its own key only', async () => {
    expect(await configureCursorKey({ CH_SCATTER_CURSOR_KEY: 'k1-0123456789abcdef' })).toBe('env');
    const c = encodeCursor('shape', [{ json: '42', type: 'UInt64' }]);
    expect(decodeCursor(c, 'shape', 1).keys).toEqual([{ json: '42', type: 'UInt64' }]);
    setCursorKey('k2-0123456789abcdef'); // another deployment, or a rotated key
    expect(() => decodeCursor(c, 'shape', 1)).toThrow(expect.objectContaining({ code: 'BAD_CURSOR', status: 400 }));
    setCursorKey('k1-0123456789abcdef');
    expect(decodeCursor(c, 'shape', 1).dup).toBe(1);
  });
  it('without a configured key: random per process', async () => {
    expect(await configureCursorKey({})).toBe('random');
  });
  it('refuses a key shorter than 16 bytes', () => {
    expect(() => setCursorKey('short')).toThrow(/at least 16 bytes/);
  });
});
