// transfer_overflow_mode: past maxRowsToTransfer, 'throw' fails with TRANSFER_LIMIT; 'break' keeps
// what fits, drops the rest and says so in FinalResult.truncated (the runtime labels it partial).
import { describe, expect, test } from 'vitest';
import { splitQuery } from '../../../shared/core/partials/index.js';
import type { SplitContext } from '../../../shared/core/partials/types.js';
import { parseSelect } from '../../../shared/core/sql/index.js';
import type { SelectQuery } from '../../../shared/core/sql/ast.js';

const CTX: SplitContext = { shardCount: 4, shardSizeFactor: 1.5, shardSizeAdd: 10, maxRowsToTransfer: 5 };
const merger = (sql: string, ctx: Partial<SplitContext> = {}) => splitQuery(parseSelect(sql) as SelectQuery, { ...CTX, ...ctx }).createMerger();
const groupMeta = [
  { name: '__k0', type: 'String' },
  { name: '__a0', type: 'UInt64' },
];
const groups = (from: number, n: number) => Array.from({ length: n }, (_, i) => ({ __k0: `g${from + i}`, __a0: '1' }));

describe('aggregate queries', () => {
  const sql = 'SELECT g, count() AS c FROM t GROUP BY g ORDER BY g';
  test("'throw' (the default) is TRANSFER_LIMIT once the groups pass the limit", () => {
    const m = merger(sql);
    m.add(0, groups(0, 3), groupMeta);
    expect(() => m.add(1, groups(3, 3), groupMeta)).toThrow(expect.objectContaining({ code: 'TRANSFER_LIMIT' }));
    expect(() => merger(sql, { transferOverflowMode: 'throw' }).add(0, groups(0, 6), groupMeta)).toThrow(expect.objectContaining({ code: 'TRANSFER_LIMIT' }));
  });
  test("'break' keeps the first groups that fit, drops the rest and marks the result truncated", () => {
    const m = merger(sql, { transferOverflowMode: 'break' });
    m.add(2, groups(0, 3), groupMeta);
    m.add(0, groups(3, 3), groupMeta); // only 2 of these fit
    m.add(1, groups(0, 4), groupMeta); // nothing fits any more, not even known groups
    const r = m.finalize();
    expect(r.data.map((d) => d.g)).toEqual(['g0', 'g1', 'g2', 'g3', 'g4']);
    expect(r.data.every((d) => d.c === '1')).toBe(true);
    expect(r.truncated).toHaveLength(1);
    expect(r.truncated![0]).toMatch(/kept 5, dropped 5 .*max_rows_to_transfer = 5/);
  });
  test("'break' within the limit: complete, no truncated field", () => {
    const m = merger(sql, { transferOverflowMode: 'break' });
    m.add(0, groups(0, 5), groupMeta);
    const r = m.finalize();
    expect(r.data).toHaveLength(5);
    expect(r.truncated).toBeUndefined();
  });
  test("uniqExact under 'break' stops at the limit (a lower bound) and says so", () => {
    const m = merger('SELECT uniqExact(x) AS u FROM t', { transferOverflowMode: 'break', maxRowsToTransfer: 3 });
    const meta = [{ name: '__a0', type: 'Array(UInt32)' }];
    m.add(0, [{ __a0: [1, 2] }], meta);
    m.add(1, [{ __a0: [2, 3, 4, 5] }], meta);
    const r = m.finalize();
    expect(r.data).toEqual([{ u: '3' }]);
    expect(r.truncated?.join(' ')).toMatch(/uniqExact: distinct set cut/);
    const t = merger('SELECT uniqExact(x) AS u FROM t', { maxRowsToTransfer: 3 });
    t.add(0, [{ __a0: [1, 2] }], meta);
    expect(() => t.add(1, [{ __a0: [2, 3, 4, 5] }], meta)).toThrow(expect.objectContaining({ code: 'TRANSFER_LIMIT' }));
  });
  test("quantileExact under 'break' keeps at most the limit of values", () => {
    const m = merger('SELECT quantileExact(0.5)(x) AS q FROM t', { transferOverflowMode: 'break', maxRowsToTransfer: 4 });
    const meta = [
      { name: '__a0', type: 'Array(UInt32)' },
      { name: '__a1', type: 'UInt32' },
    ];
    m.add(0, [{ __a0: [1, 2, 3], __a1: 1 }], meta);
    m.add(1, [{ __a0: [10, 20, 30], __a1: 10 }], meta);
    const r = m.finalize();
    expect(r.data).toEqual([{ q: 3 }]); // kept [1, 2, 3, 10]: element floor(0.5 * 4) = 2 of the sorted values
    expect(r.truncated?.join(' ')).toMatch(/quantileExact: values cut/);
  });
});

describe('row queries', () => {
  const sql = 'SELECT uid, v FROM t ORDER BY v LIMIT 10';
  const meta = [
    { name: 'uid', type: 'UInt32' },
    { name: 'v', type: 'Int32' },
  ];
  const rows = (shard: number, vs: number[]) => vs.map((v, i) => ({ uid: shard * 100 + i, v }));
  test("'throw' is TRANSFER_LIMIT, 'break' merges each shard's first rows and is truncated (no cursor)", () => {
    const t = merger(sql);
    t.add(0, rows(0, [1, 3, 5]), meta);
    expect(() => t.add(1, rows(1, [2, 4, 6]), meta)).toThrow(expect.objectContaining({ code: 'TRANSFER_LIMIT' }));
    const b = merger(sql, { transferOverflowMode: 'break' });
    b.add(0, rows(0, [1, 3, 5]), meta);
    b.add(1, rows(1, [2, 4, 6]), meta);
    const r = b.finalize();
    expect(r.data.map((d) => d.v)).toEqual([1, 2, 3, 4, 5]);
    expect(r.truncated![0]).toMatch(/rows: kept 5, dropped 1/);
    expect(r.cursor).toBeUndefined();
  });
});
