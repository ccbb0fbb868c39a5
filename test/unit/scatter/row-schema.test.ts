// Rows inside shard requests and responses: any plain object passes as it is (no copy, no key
// walk); anything else is refused with the path of the bad row.
import { describe, expect, test } from 'vitest';
import fc from 'fast-check';
import { parseShardResponse } from '../../../shared/core/protocol/shard-response-schema.js';
import { shardPayloadSchema } from '../../../shared/core/protocol/shard-request-schema.js';

const success = (rows: unknown) => ({
  ok: true,
  shard: 0,
  replica: 0,
  meta: [{ name: 'c', type: 'UInt64' }],
  rows,
  statistics: { elapsedMs: 1, rowsRead: 1, bytesRead: 1 },
});
const query = (rows: unknown) => ({
  type: 'query',
  queryId: 'q',
  shard: 0,
  replica: 0,
  deadline: Date.now() + 1000,
  sql: 'SELECT 1',
  settings: {},
  external: [{ name: '_data_1', columns: [{ name: 'u', type: 'UInt32' }], rows }],
});

describe('rows in shard responses and requests', () => {
  test('any JSON object row passes unchanged', () => {
    fc.assert(
      fc.property(fc.array(fc.dictionary(fc.string(), fc.jsonValue())), (rows) => {
        const r = parseShardResponse(success(rows));
        expect(r.ok).toBe(true);
        if (r.ok && r.value.ok) expect(r.value.rows).toEqual(rows);
        expect(shardPayloadSchema.safeParse(query(rows)).success).toBe(true);
      }),
    );
  });

  test.each([[[1]], [[null]], [[[1, 2]]], [['row']], ['not an array'], [[{ c: 1 }, 7]]])('refuses rows %j, naming the bad one', (rows) => {
    const r = parseShardResponse(success(rows));
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.problem).toMatch(/^rows/);
    const q = shardPayloadSchema.safeParse(query(rows));
    expect(q.success).toBe(false);
    expect(q.error?.issues[0]?.path.slice(0, 3)).toEqual(['external', 0, 'rows']);
  });
});

describe('shipped sets encoded once per query', () => {
  test('encodedOnce: one shared JSONEachRow text per table, rows dropped, idempotent; the shard accepts it', async () => {
    const { encodedOnce } = await import('../../../shared/core/scatter/gather.js');
    const { toJsonEachRow } = await import('../../../shared/core/clickhouse/sql-text.js');
    const t = { name: '_data_1', columns: [{ name: 'u', type: 'UInt64' }], rows: [{ u: '18446744073709551615' }, { u: 3 }] };
    const e = encodedOnce(t);
    expect(e).toBe(encodedOnce(t));
    expect(encodedOnce(e)).toBe(e);
    expect([e.rows, e.jsonEachRow]).toEqual([[], toJsonEachRow(t.rows)]);
    expect(t.rows).toHaveLength(2);
    const q = shardPayloadSchema.safeParse({ ...query([]), external: [{ name: e.name, columns: e.columns, jsonEachRow: e.jsonEachRow }] });
    expect(q.success).toBe(true);
    expect(shardPayloadSchema.safeParse({ ...query([]), external: [{ name: 'x', columns: e.columns, jsonEachRow: 7 }] }).success).toBe(false);
  });
});
