// Inserts through a shard function are split so no Invoke payload passes Lambda's 6 MB limit,
// in order, each row exactly once.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { chunkRows, createAdminAccess } from '../../../core/scatter/shard-admin-access.js';
import type { ShardAdminRequest } from '../../../core/protocol/shard-wire.js';

describe('admin access inserts', () => {
  it('chunks stay under the byte limit and keep every row in order (fast-check)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ id: fc.nat(), s: fc.string({ maxLength: 60 }) }), { maxLength: 200 }),
        fc.integer({ min: 64, max: 2000 }),
        (rows, max) => {
          const chunks = chunkRows(rows, max);
          expect(chunks.flat()).toEqual(rows);
          for (const c of chunks) {
            expect(c.length).toBeGreaterThan(0);
            if (c.length > 1) expect(Buffer.byteLength(JSON.stringify(c))).toBeLessThanOrEqual(max);
          }
        },
      ),
    );
  });

  it('sends one insert request per chunk to the named shard and replica', async () => {
    const sent: ShardAdminRequest[] = [];
    const access = createAdminAccess({
      shard: 1,
      replica: 2,
      maxPayloadBytes: 1000,
      invoker: {
        invoke: async () => {
          throw new Error('no queries here');
        },
        invokeAdmin: async (_s, p) => {
          sent.push(p);
          return { ok: true };
        },
      },
    });
    const rows = Array.from({ length: 100 }, (_, i) => ({ id: i, name: `row-${i}` }));
    await access.insert('db.roll', rows);
    expect(sent.length).toBeGreaterThan(1);
    expect(sent.every((p) => p.type === 'insert' && p.table === 'db.roll' && p.shard === 1 && p.replica === 2)).toBe(true);
    expect(sent.flatMap((p) => p.rows)).toEqual(rows);
  });
});
