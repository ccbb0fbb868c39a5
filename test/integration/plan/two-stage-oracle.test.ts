// The two-stage plan against ClickHouse itself (chdb): each query's leaves run on four shard tables,
// their TabSeparated bodies load into the final stage's temporary tables, finalSql runs, and the
// answer must equal the query over one table holding every row (names, types, rows, totals).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chdbEngine, type StageEngine } from './two-stage/engines.js';
import { expectSameAnswer, loadData, onAllRows, runTwoStage, stageTopology } from './two-stage/harness.js';
import { AGGREGATES, QUERIES } from './two-stage/queries.js';

const topo = stageTopology();
let engine: StageEngine;

beforeAll(async () => {
  engine = chdbEngine();
  await loadData(engine, topo);
}, 60_000);
afterAll(() => engine?.close());

describe('two-stage plan = ClickHouse on all rows (chdb)', () => {
  it('covers at least 60 queries and 40 aggregate functions or combinators', () => {
    expect(QUERIES.length).toBeGreaterThanOrEqual(60);
    expect(new Set(AGGREGATES).size).toBeGreaterThanOrEqual(40);
  });
  it.each(QUERIES.map((x, i) => [i, x.sql] as const))('[%i] %s', async (_i, sql) => {
    const { answer } = await runTwoStage(engine, topo, sql);
    const theirs = await engine.json(onAllRows(sql));
    expectSameAnswer(answer, theirs, sql);
  });
  it('the rows of a leaf may arrive in any order', async () => {
    const sql = 'SELECT sensor, count(), quantileExact(0.5)(amount) FROM o.ev GROUP BY sensor ORDER BY sensor';
    const theirs = await engine.json(onAllRows(sql));
    for (const order of [
      [3, 2, 1, 0],
      [1, 3, 0, 2],
    ])
      expectSameAnswer((await runTwoStage(engine, topo, sql, { order })).answer, theirs, sql);
  });
  it('a local IN is planned local and said so; the answer is exact', async () => {
    const sql = 'SELECT count() FROM o.ev WHERE uid IN (SELECT uid FROM o.us WHERE score > 10)';
    const { plan, answer } = await runTwoStage(engine, topo, sql);
    expect(plan.leaves[0]!.distributedProductMode).toBe('local');
    expect(plan.notes.join('\n')).toMatch(/local IN: uid IN \(subquery over o\.us\).*exact/);
    expectSameAnswer(answer, await engine.json(onAllRows(sql)), sql);
  });
  it("IN over a table sharded another way: GLOBAL IN under distributed_product_mode = 'global', refused under 'deny'", async () => {
    const sql = 'SELECT kind, count() FROM o.ev WHERE sensor IN (SELECT sensor FROM o.evs WHERE amount > 680) GROUP BY kind ORDER BY kind';
    const { plan, answer } = await runTwoStage(engine, topo, sql, { distributedProductMode: 'global' });
    expect(plan.leaves[0]!.distributedProductMode).toBeUndefined();
    expect(plan.notes.join('\n')).toMatch(/runs as GLOBAL IN/);
    expectSameAnswer(answer, await engine.json(onAllRows(sql)), sql);
    await expect(runTwoStage(engine, topo, sql)).rejects.toMatchObject({ code: 'UNSUPPORTED' });
  });
  it('GLOBAL IN written by the user keeps the GLOBAL machinery', async () => {
    const sql = "SELECT count() FROM o.evs WHERE uid GLOBAL IN (SELECT uid FROM o.us WHERE country = 'fr')";
    const { plan, answer } = await runTwoStage(engine, topo, sql);
    expect(plan.notes.join('\n')).toMatch(/GLOBAL IN o\.us: the subquery runs once/);
    expectSameAnswer(answer, await engine.json(onAllRows(sql)), sql);
  });
});
