// transfer_overflow_mode = 'break' on real partials: shard answers from 5 embedded chdb shards,
// merged with a maxRowsToTransfer far below what they send. The answer must be marked truncated
// and hold only what the data supports (every kept group's count at most its true count, never an
// invented group); 'throw' stays TRANSFER_LIMIT; with room to spare both equal the single node.
import { afterAll, beforeAll, expect, test } from 'vitest';
import { splitQuery } from '../../../shared/core/partials/index.js';
import type { SplitContext } from '../../../shared/core/partials/types.js';
import { parseSelect, printSelect } from '../../../shared/core/sql/index.js';
import type { SelectQuery } from '../../../shared/core/sql/ast.js';
import { startOracle, toLocal, type Oracle } from './harness.js';

let o: Oracle;
beforeAll(async () => {
  o = await startOracle(6_000);
}, 120_000);
afterAll(async () => {
  await o?.stop();
});

const BASE: SplitContext = { shardCount: 5, shardSizeFactor: 1.5, shardSizeAdd: 10, maxRowsToTransfer: 0 };

async function merged(sql: string, ctx: Partial<SplitContext>, order = [3, 0, 4, 1, 2]) {
  const split = splitQuery(parseSelect(sql) as SelectQuery, { ...BASE, ...ctx });
  const shardSql = toLocal(printSelect(split.shardQuery));
  const answers = await Promise.all(o.cluster.shards.map((s) => s.query(shardSql)));
  const m = split.createMerger();
  for (const i of order) m.add(i, answers[i]!.rows, answers[i]!.meta);
  return { fin: m.finalize(), sent: answers.reduce((a, r) => a + r.rows.length, 0) };
}

test("GROUP BY past the limit: 'break' keeps at most the limit, counts never exceed the truth, marked truncated", async () => {
  const sql = 'SELECT region, sensor, count() AS c FROM oracle.evs GROUP BY region, sensor ORDER BY region, sensor';
  const truth = new Map((await o.single(sql)).rows.map((r) => [`${r.region}|${r.sensor}`, BigInt(r.c as string)]));
  const all = await merged(sql, {});
  expect(all.fin.truncated).toBeUndefined();
  expect(all.fin.data.length).toBe(truth.size);
  const limit = Math.floor(all.sent / 3);
  expect(limit).toBeGreaterThan(0);
  await expect(merged(sql, { maxRowsToTransfer: limit })).rejects.toMatchObject({ code: 'TRANSFER_LIMIT' });
  const cut = await merged(sql, { maxRowsToTransfer: limit, transferOverflowMode: 'break' });
  expect(cut.fin.truncated?.[0]).toMatch(new RegExp(`kept ${limit}, dropped ${all.sent - limit}`));
  expect(cut.fin.data.length).toBeGreaterThan(0);
  expect(cut.fin.data.length).toBeLessThanOrEqual(limit);
  for (const r of cut.fin.data) {
    const t = truth.get(`${r.region}|${r.sensor}`);
    expect(t).toBeDefined();
    expect(BigInt(r.c as string)).toBeLessThanOrEqual(t!);
  }
});

test("uniqExact past the limit under 'break': a lower bound of the truth, marked truncated", async () => {
  const sql = 'SELECT uniqExact(uid) AS u FROM oracle.evs';
  const truth = BigInt((await o.single(sql)).rows[0]!.u as string);
  const cut = await merged(sql, { maxRowsToTransfer: 100, transferOverflowMode: 'break' });
  expect(truth).toBeGreaterThan(100n);
  expect(cut.fin.data).toEqual([{ u: '100' }]);
  expect(cut.fin.truncated?.join(' ')).toMatch(/uniqExact/);
  const room = await merged(sql, { maxRowsToTransfer: 1_000_000, transferOverflowMode: 'break' });
  expect(room.fin.data).toEqual([{ u: truth.toString() }]);
  expect(room.fin.truncated).toBeUndefined();
});
