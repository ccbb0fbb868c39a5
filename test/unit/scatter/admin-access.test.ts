// Inserts through a shard function are split so no Invoke payload passes Lambda's 6 MB limit,
// in order, each row exactly once.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { chunkBase64Rows, chunkRows, createAdminAccess } from '../../../shared/core/scatter/shard-admin-access.js';
import { shardPayloadSchema } from '../../../shared/core/protocol/shard-request-schema.js';
import { ClickHouseError } from '../../../shared/core/clickhouse/port.js';
import type { ShardAdminRequest } from '../../../shared/core/protocol/shard-wire.js';

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

  it('rows as bytes: base64 chunks under the limit, every byte and row kept in order (fast-check)', () => {
    fc.assert(
      fc.property(fc.array(fc.uint8Array({ maxLength: 80 }), { maxLength: 200 }), fc.integer({ min: 64, max: 2000 }), (rows, max) => {
        const chunks = chunkBase64Rows(rows, max);
        expect(chunks.flat().map((t) => Buffer.from(t, 'base64'))).toEqual(rows.map((r) => Buffer.from(r)));
        for (const c of chunks) if (c.length > 1) expect(JSON.stringify(c).length).toBeLessThanOrEqual(max);
      }),
    );
  });

  it('a byte insert travels as a valid insert request, and the ClickHouse code of a refusal comes back', async () => {
    const sent: unknown[] = [];
    const access = createAdminAccess({
      shard: 0,
      replica: 0,
      invoker: {
        invoke: async () => {
          throw new Error('no queries here');
        },
        invokeAdmin: async (_s, p) => {
          sent.push(JSON.parse(JSON.stringify(p)));
          return p.checkOnly ? { ok: false, error: { kind: 'error', chCode: 69, message: 'Code: 69. DB::Exception: Decimal value is too big' } } : { ok: true };
        },
      },
    });
    const rows = [Buffer.from('a\xff\t1', 'latin1'), Buffer.from([0xfe, 0x09, 0x32])];
    await access.insert('db.t', [], { data: { format: 'TabSeparated', columns: ['k', 'v'], rows } });
    const parsed = shardPayloadSchema.parse(sent[0]);
    expect(parsed.type === 'insert' && parsed.data?.rows.map((r) => Buffer.from(r, 'base64'))).toEqual(rows);
    const refused = await access.insert('db.t', [], { data: { format: 'CSV', rows }, checkOnly: true }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(ClickHouseError);
    expect((refused as ClickHouseError).chCode).toBe(69);
  });
});
