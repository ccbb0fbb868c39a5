// Constant operands on the sharding key (`k = toUInt8(3)`, `k = 1 + 2`, `k IN (1 + 1, 3)`,
// `sensor = concat('s-', toString(4))`) are folded on one engine before the shards are chosen, as
// ClickHouse's analyzer folds them. Property (fast-check): the plan asks exactly the shards the plan of
// the same values written as literals asks, refuses under force_optimize_skip_unused_shards exactly when
// that one does, and its rows equal one node's. Real engines: a 4-shard chdb cluster and an oracle; a
// statement that reads no table runs on shard 0's engine, as the runtime's runner runs it on one engine.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { planQueryWith } from '../../../shared/core/plan/build.js';
import type { QueryPlan, SubqueryRunner } from '../../../shared/core/plan/types.js';
import { tablesRead } from '../../../shared/core/plan/analyze.js';
import { printSelect } from '../../../shared/core/sql/print.js';
import type { EmbeddedCluster } from '../../support/embedded-cluster.js';
import { passThroughSplit, testTopology } from '../../unit/plan/fixtures.js';
import { canon, clusterRunner, generateData, loadCluster, runPlanRows } from './cluster-fixture.js';

const topo = testTopology();
let cluster: EmbeddedCluster;
const asked: string[] = [];

beforeAll(async () => {
  cluster = await loadCluster(topo, generateData());
});
afterAll(async () => {
  await cluster?.stop();
});

/** The cluster's runner (a constant SELECT on shard 0's engine), recording each constant SELECT it is asked. */
function runner(): SubqueryRunner {
  const run = clusterRunner(cluster, topo);
  return (stmt) => {
    if (tablesRead(stmt, topo).length === 0) asked.push(printSelect(stmt));
    return run(stmt);
  };
}

const skippedOf = (p: QueryPlan) => p.shards.map((s) => (s.skipped ? 0 : 1)).join('');

type Outcome = { skipped: string } | { refused: string };
async function outcome(sql: string, force: 0 | 1): Promise<Outcome> {
  try {
    return {
      skipped: skippedOf(await planQueryWith(sql, topo, { runSubquery: runner(), settings: { force_optimize_skip_unused_shards: force } }, passThroughSplit)),
    };
  } catch (e) {
    return { refused: (e as { code?: string }).code ?? String(e) };
  }
}

/** One UInt8 key value spelled as a constant call, with its literal twin. */
const uint8Operand: fc.Arbitrary<[string, string]> = fc.integer({ min: 0, max: 255 }).chain((v) =>
  fc.oneof(
    fc.constant<[string, string]>([`toUInt8(${v})`, `${v}`]),
    fc.constant<[string, string]>([`toUInt16('${v}')`, `${v}`]),
    fc.integer({ min: 0, max: v }).map((a): [string, string] => [`${a} + ${v - a}`, `${v}`]),
    fc.constant<[string, string]>([`intDiv(${2 * v}, 2)`, `${v}`]),
    fc.constant<[string, string]>([`toInt64(${v}) * 1`, `${v}`]),
    // Wraps to v, as ClickHouse's toUInt8 wraps.
    fc.constant<[string, string]>([`toUInt8(${v + 256})`, `${v}`]),
    fc.constant<[string, string]>([`${v} + 0.0`, `${v}`]),
    // Fits no UInt8 row: nowhere, as its literal.
    fc.constant<[string, string]>([`toUInt16(${v + 256})`, `${v + 256}`]),
    fc.constant<[string, string]>([`${v} + 0.5`, `${v}.5`]),
    fc.constant<[string, string]>([`${v}`, `${v}`]),
  ),
);

/** One sensor (String key, xxHash64) spelled as a constant call, with its literal twin. */
const sensorOperand: fc.Arbitrary<[string, string]> = fc
  .integer({ min: 0, max: 24 })
  .chain((n) =>
    fc.oneof(
      fc.constant<[string, string]>([`concat('s-', toString(${n}))`, `'s-${n}'`]),
      fc.constant<[string, string]>([`lower('S-${n}')`, `'s-${n}'`]),
      fc.constant<[string, string]>([`substring('xs-${n}', 2)`, `'s-${n}'`]),
      fc.constant<[string, string]>([`'s-${n}'`, `'s-${n}'`]),
    ),
  );

/** `key = x`, `x = key`, `key IN (...)` and their AND/OR, each with its literal twin. */
function predicate(key: string, operand: fc.Arbitrary<[string, string]>, other: string): fc.Arbitrary<[string, string]> {
  const list = fc
    .array(operand, { minLength: 1, maxLength: 5 })
    .map((xs): [string, string] => [xs.map((x) => x[0]).join(', '), xs.map((x) => x[1]).join(', ')]);
  const atom = fc.oneof(
    operand.map(([c, l]): [string, string] => [`${key} = ${c}`, `${key} = ${l}`]),
    operand.map(([c, l]): [string, string] => [`${c} = ${key}`, `${l} = ${key}`]),
    list.map(([c, l]): [string, string] => [`${key} IN (${c})`, `${key} IN (${l})`]),
    fc.constant<[string, string]>([other, other]),
  );
  return fc.oneof(
    atom,
    fc.tuple(atom, atom).map(([a, b]): [string, string] => [`(${a[0]}) AND (${b[0]})`, `(${a[1]}) AND (${b[1]})`]),
    fc.tuple(atom, atom).map(([a, b]): [string, string] => [`(${a[0]}) OR (${b[0]})`, `(${a[1]}) OR (${b[1]})`]),
  );
}

async function sameAsLiterals([constants, literals]: [string, string], table: string, columns: string): Promise<void> {
  const sql = (where: string) => `SELECT ${columns} FROM ${table} WHERE ${where}`;
  for (const force of [0, 1] as const) expect(await outcome(sql(constants), force), `${constants} / ${literals}`).toEqual(await outcome(sql(literals), force));
  const plan = await planQueryWith(sql(constants), topo, { runSubquery: runner() }, passThroughSplit);
  expect(canon((await runPlanRows(cluster, plan)).rows), constants).toEqual(canon((await cluster.oracle!.query(sql(constants))).rows));
}

describe("the key's constant operands, folded on one engine", () => {
  it('UInt8 identity key: calls, sums, conversions that wrap, floats and out-of-range values ask the shards their literals ask', async () => {
    await fc.assert(
      fc.asyncProperty(predicate('k', uint8Operand, 'v < 100'), (p) => sameAsLiterals(p, 'nums_dist', 'k, v')),
      { numRuns: 40 },
    );
  });

  it('String key hashed with xxHash64: string functions ask the shards their literals ask', async () => {
    await fc.assert(
      fc.asyncProperty(predicate('sensor', sensorOperand, 'value > 100'), (p) => sameAsLiterals(p, 'analytics.events_dist', 'sensor, value')),
      { numRuns: 30 },
    );
  });

  it('one SELECT per plan folds every distinct operand; each shard keeps the operands of its values, as written', async () => {
    asked.length = 0;
    const spelled: Record<string, string> = { '1 + 1': '2', 'toUInt8(7)': '7', '0 + 4': '4', 'toUInt8(9)': '9', 'toUInt8(200)': '200' };
    const sql = (xs: string[]) => `SELECT k FROM nums_dist WHERE k IN (${xs.join(', ')}) OR k = toUInt8(7)`;
    const calls = ['1 + 1', 'toUInt8(7)', '1 + 1', '0 + 4', 'toUInt8(9)', 'toUInt8(200)'];
    const plan = await planQueryWith(sql(calls), topo, { runSubquery: runner() }, passThroughSplit);
    expect(asked).toEqual(['SELECT 1 + 1 AS _c0, toUInt8(7) AS _c1, 0 + 4 AS _c2, toUInt8(9) AS _c3, toUInt8(200) AS _c4']);
    const literal = await planQueryWith(sql(calls.map((c) => spelled[c]!)).replace('OR k = toUInt8(7)', 'OR k = 7'), topo, {}, passThroughSplit);
    expect(skippedOf(plan)).toBe(skippedOf(literal));
    const asLiterals = (text: string | undefined) => Object.entries(spelled).reduce((t, [c, l]) => t?.split(c).join(l), text);
    expect(plan.shards.map((s) => asLiterals(s.sql))).toEqual(literal.shards.map((s) => s.sql));
    // More than one shard is asked, and some shard holds only some of the values.
    expect(plan.shards.filter((s) => !s.skipped).length).toBeGreaterThan(1);
    expect(plan.shards.some((s) => !s.skipped && !s.sql!.includes('toUInt8(200)'))).toBe(true);
  });

  it('a per-engine value (today(), now()) is not folded: `=` keeps every shard as a condition on the key, a set narrows nothing', async () => {
    asked.length = 0;
    for (const where of ['k = toUInt8(today() - today())', 'k IN (toUInt8(now() - now()))']) {
      const plan = await planQueryWith(`SELECT k FROM nums_dist WHERE ${where}`, topo, { runSubquery: runner() }, passThroughSplit);
      expect(skippedOf(plan), where).toBe('1111');
    }
    expect(await outcome('SELECT k FROM nums_dist WHERE k = toUInt8(today() - today())', 1)).toEqual({ skipped: '1111' });
    expect(await outcome('SELECT k FROM nums_dist WHERE k IN (toUInt8(now() - now()))', 1)).toEqual({ refused: 'UNABLE_TO_SKIP_SHARDS' });
    expect(asked).toEqual([]);
  });

  it.each([
    // Read back as literals: numbers (Decimal's whole value), Bool, Nullable of them, String and FixedString.
    ['k = toDecimal32(3, 2)', 'k = 3'],
    ['k = toNullable(toUInt8(9))', 'k = 9'],
    ['k = toBool(1)', 'k = 1'],
    ['k = toString(200)', 'k = 200'],
    ["sensor = toFixedString('s-3', 3)", "sensor = 's-3'"],
    ["sensor = toNullable(concat('s-', '5'))", "sensor = 's-5'"],
    // A Date converted to the key's type is a number; a Date itself is read as no literal here: every shard.
    ["k = toUInt8(toDate('1970-01-04'))", 'k = 3'],
    ["k = toDate('1970-01-04')", 'k = v'],
    // NULL: no condition.
    ['k = CAST(NULL AS Nullable(UInt8))', 'k = NULL'],
  ])('%s asks the shards %s asks', async (constants, literals) => {
    const table = constants.startsWith('k') ? 'nums_dist' : 'analytics.events_dist';
    const plan = (where: string) => planQueryWith(`SELECT * FROM ${table} WHERE ${where}`, topo, { runSubquery: runner() }, passThroughSplit);
    expect(skippedOf(await plan(constants))).toBe(skippedOf(await plan(literals)));
  });

  it('without a runner (a plan that runs nothing) a constant is not folded: `=` keeps every shard, an IN set narrows nothing', async () => {
    const force = { force_optimize_skip_unused_shards: 1 };
    expect(skippedOf(await planQueryWith('SELECT k FROM nums_dist WHERE k = toUInt8(3)', topo, { settings: force }, passThroughSplit))).toBe('1111');
    await expect(planQueryWith('SELECT k FROM nums_dist WHERE k IN (toUInt8(3))', topo, { settings: force }, passThroughSplit)).rejects.toMatchObject({
      code: 'UNABLE_TO_SKIP_SHARDS',
    });
    expect(
      skippedOf(await planQueryWith('SELECT k FROM nums_dist WHERE k IN (toUInt8(3))', topo, { runSubquery: runner(), settings: force }, passThroughSplit)),
    ).toBe(skippedOf(await planQueryWith('SELECT k FROM nums_dist WHERE k IN (3)', topo, {}, passThroughSplit)));
  });
});
