// Property: however the rows are split across the shards (some shards empty) and in whatever order
// the shards' answers arrive, the two-stage plan returns what ClickHouse returns over all rows.
// The split is drawn by fast-check (seeded: the run's seed is printed; FC_SEED replays it).
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chdbEngine, type StageEngine } from './two-stage/engines.js';
import { expectSameAnswer, loadData, onAllRows, runTwoStage, SHARDS, stageTopology } from './two-stage/harness.js';

const topo = stageTopology();
let engine: StageEngine;

// No condition on the sharding key and no local IN: nothing here depends on where a key lives.
const QUERIES = [
  'SELECT sensor, count(), sum(amount), uniqExact(uid), quantileExact(0.5)(amount) FROM o.ev GROUP BY sensor ORDER BY sensor',
  'SELECT kind, sensor, count() FROM o.ev GROUP BY kind, sensor WITH ROLLUP WITH TOTALS ORDER BY kind, sensor',
  'SELECT toDate(ts) AS d, count() AS c, sum(count()) OVER (ORDER BY d) AS running FROM o.ev GROUP BY d ORDER BY d',
  'SELECT id, value FROM o.ev ORDER BY value DESC, id LIMIT 7 OFFSET 3',
  'SELECT sensor, id FROM o.ev ORDER BY sensor, id DESC LIMIT 2 BY sensor',
  'SELECT DISTINCT kind, uid % 3 AS m FROM o.ev ORDER BY kind, m',
  "SELECT count(), avg(value), argMax(id, amount * 10000 + id), sumIf(amount, kind = 'a'), countIf(n IS NULL) FROM o.ev",
  'SELECT c, count() FROM (SELECT uid, count() AS c FROM o.ev GROUP BY uid) GROUP BY c ORDER BY c',
  'SELECT id, rank() OVER (PARTITION BY sensor ORDER BY amount DESC, id) AS r FROM o.ev WHERE id < 200 ORDER BY id',
  'SELECT n, count(), sum(n) FROM o.ev GROUP BY n ORDER BY n NULLS FIRST',
];

beforeAll(async () => {
  engine = chdbEngine();
  await loadData(engine, topo);
  for (let s = 0; s < SHARDS; s++) await engine.exec(`CREATE TABLE o.evr_s${s} AS o.ev_all`);
}, 60_000);
afterAll(() => engine?.close());

describe('two-stage: any split of the rows, any arrival order', () => {
  it('equals ClickHouse over all rows', async () => {
    const answers = new Map<string, Awaited<ReturnType<StageEngine['json']>>>();
    for (const sql of QUERIES) answers.set(sql, await engine.json(onAllRows(sql)));
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: 2 ** 31 - 1 }),
        fc.integer({ min: 1, max: SHARDS }),
        fc.shuffledSubarray([0, 1, 2, 3], { minLength: SHARDS, maxLength: SHARDS }),
        fc.constantFrom(...QUERIES),
        async (salt, used, order, sql) => {
          // Rows go to shards 0..used-1 by a salted hash of the row id; shards from `used` on stay empty.
          for (let s = 0; s < SHARDS; s++) {
            await engine.exec(`TRUNCATE TABLE o.evr_s${s}`);
            if (s < used) await engine.exec(`INSERT INTO o.evr_s${s} SELECT * FROM o.ev_all WHERE cityHash64(id, ${salt}) % ${used} = ${s}`);
          }
          const { answer } = await runTwoStage(engine, topo, sql, { order, tableOf: (local, s) => (local === 'o.ev_local' ? `o.evr_s${s}` : local) });
          expectSameAnswer(answer, answers.get(sql)!, sql);
        },
      ),
      { numRuns: 40 },
    );
    expect(answers.size).toBe(QUERIES.length);
  }, 120_000);
});
