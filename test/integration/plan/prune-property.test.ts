// Property (fast-check): for random filters over the sharding key (=, IN, NOT IN, ranges,
// functions of the key, NULL in sets, out-of-range and string-typed literals, AND/OR/NOT, and a
// GLOBAL IN on the key), the pruned and skipped plan returns exactly the rows of the plan with
// skipping and IN rewriting turned off, and both equal the single node holding every row.
// Real engines: a 4-shard chdb cluster (weights 1,2,1,1) plus an oracle, data placed by the router's Placement.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import type { EmbeddedCluster } from '../../support/embedded-cluster.js';
import { planQueryWith } from '../../../shared/core/plan/build.js';
import { passThroughSplit, testTopology } from '../../unit/plan/fixtures.js';
import { canon, clusterRunner, loadCluster, runPlanRows, type Row } from './cluster-fixture.js';
import { fcSeed } from '../../support/fc-seed.js';

const topo = testTopology();
let cluster: EmbeddedCluster;

// Generated data: random sensors (some never queried, some queried but absent), random nums/signed keys.
function generatedData(seed: number): Record<string, Row[]> {
  const [events] = fc.sample(
    fc.array(fc.record({ s: fc.integer({ min: 0, max: 19 }), value: fc.integer({ min: 0, max: 500 }), u: fc.integer({ min: 0, max: 9 }) }), {
      minLength: 50,
      maxLength: 300,
    }),
    { seed, numRuns: 1 },
  );
  const [nums] = fc.sample(
    fc.array(fc.record({ k: fc.integer({ min: 0, max: 255 }), v: fc.integer({ min: -1000, max: 1000 }) }), { minLength: 50, maxLength: 300 }),
    { seed: seed + 1, numRuns: 1 },
  );
  const [signed] = fc.sample(
    fc.array(fc.record({ k: fc.integer({ min: -128, max: 127 }), v: fc.integer({ min: -1000, max: 1000 }) }), { minLength: 50, maxLength: 300 }),
    { seed: seed + 2, numRuns: 1 },
  );
  // Sensors that are decimal integers too (each of 0..30, some twice), for integers in an IN set on the String key.
  const [numeric] = fc.sample(fc.array(fc.integer({ min: 0, max: 30 }), { maxLength: 30 }), { seed: seed + 3, numRuns: 1 });
  const numbers = [...Array.from({ length: 31 }, (_, n) => n), ...numeric!];
  return {
    'analytics.events': [...events!, ...numbers.map((n, i) => ({ s: -1 - n, value: i, u: i % 10 }))].map((r, i) => ({
      sensor: r.s < 0 ? String(-1 - r.s) : `s-${r.s}`,
      ts: `2024-01-01 00:00:${String(i % 60).padStart(2, '0')}`,
      value: r.value,
      user_id: String(r.u),
    })),
    'analytics.users': [],
    'default.nums': nums!.map((r) => ({ k: r.k, v: String(r.v) })),
    'default.signed_local': signed!.map((r) => ({ k: r.k, v: String(r.v) })),
  };
}

beforeAll(async () => {
  cluster = await loadCluster(topo, generatedData(fcSeed()));
});
afterAll(async () => {
  await cluster?.stop();
});

type Gen = fc.Arbitrary<string>;

function predicate(key: string, lit: Gen, other: Gen): Gen {
  const list = fc.array(lit, { minLength: 1, maxLength: 8 }).map((xs) => xs.join(', '));
  const atom = fc.oneof(
    { weight: 3, arbitrary: lit.map((l) => `${key} = ${l}`) },
    { weight: 4, arbitrary: list.map((l) => `${key} IN (${l})`) },
    { weight: 1, arbitrary: list.map((l) => `${key} IN tuple(${l})`) },
    { weight: 1, arbitrary: list.map((l) => `${key} IN (${l}, NULL)`) },
    { weight: 2, arbitrary: list.map((l) => `${key} NOT IN (${l})`) },
    { weight: 1, arbitrary: lit.map((l) => `${key} > ${l}`) },
    { weight: 1, arbitrary: other },
  );
  const { tree } = fc.letrec<{ tree: string }>((tie) => ({
    tree: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      atom,
      fc.tuple(tie('tree'), tie('tree')).map(([a, b]) => `(${a}) AND (${b})`),
      fc.tuple(tie('tree'), tie('tree')).map(([a, b]) => `(${a}) OR (${b})`),
      tie('tree').map((a) => `NOT (${a})`),
    ),
  }));
  return tree;
}

async function threeWays(sql: string): Promise<void> {
  const runner = clusterRunner(cluster, topo);
  const pruned = await planQueryWith(sql, topo, { runSubquery: runner }, passThroughSplit);
  const plain = await planQueryWith(
    sql,
    topo,
    { runSubquery: runner, settings: { optimize_skip_unused_shards: 0, optimize_skip_unused_shards_rewrite_in: 0 } },
    passThroughSplit,
  );
  expect(plain.shards.every((s) => !s.skipped)).toBe(true);
  const a = canon((await runPlanRows(cluster, pruned)).rows);
  const b = canon((await runPlanRows(cluster, plain)).rows);
  const truth = canon((await cluster.oracle!.query(sql)).rows);
  expect(a, sql).toEqual(truth);
  expect(b, sql).toEqual(truth);
}

describe('pruned + skipped plans return the same rows as unpruned plans and as one node', () => {
  it('String key hashed with xxHash64', async () => {
    const lit = fc.integer({ min: 0, max: 24 }).map((i) => `'s-${i}'`);
    const other = fc.oneof(
      fc.integer({ min: 0, max: 500 }).map((n) => `value > ${n}`),
      lit.map((l) => `lower(sensor) = ${l}`),
    );
    await fc.assert(
      fc.asyncProperty(predicate('sensor', lit, other), async (p) => threeWays(`SELECT sensor, value FROM analytics.events_dist WHERE ${p}`)),
      { numRuns: 60 },
    );
  });

  it('String key: integers in an IN set are placed as their decimal text, as ClickHouse builds the set', async () => {
    const item = fc.oneof(
      { weight: 3, arbitrary: fc.integer({ min: 0, max: 35 }).map(String) },
      { weight: 1, arbitrary: fc.integer({ min: 0, max: 35 }).map((n) => `'${n}'`) },
      { weight: 1, arbitrary: fc.constantFrom('0x10', '0x1e', '-3', 'true', '2.0', "'s-1'") },
    );
    const set = fc.array(item, { minLength: 1, maxLength: 8 }).map((xs) => xs.join(', '));
    const atom = fc.oneof(
      set.map((l) => `sensor IN (${l})`),
      set.map((l) => `sensor NOT IN (${l})`),
      fc.integer({ min: 0, max: 40 }).map((n) => `value > ${n}`),
    );
    const tree = fc.oneof(
      atom,
      fc.tuple(atom, atom).map(([a, b]) => `(${a}) AND (${b})`),
      fc.tuple(atom, atom).map(([a, b]) => `(${a}) OR (${b})`),
    );
    await fc.assert(
      fc.asyncProperty(tree, async (p) => threeWays(`SELECT sensor, value FROM analytics.events_dist WHERE ${p}`)),
      { numRuns: 40 },
    );
  });

  it('UInt8 identity key with out-of-range, signed and string literals', async () => {
    const lit = fc.oneof(
      { weight: 6, arbitrary: fc.integer({ min: 0, max: 255 }).map(String) },
      { weight: 1, arbitrary: fc.constantFrom('256', '300', '-1', '0xFF', '1e1', '2.5') },
      { weight: 1, arbitrary: fc.integer({ min: 0, max: 255 }).map((n) => `'${n}'`) },
    );
    const other = fc.integer({ min: -1000, max: 1000 }).map((n) => `v < ${n}`);
    await fc.assert(
      fc.asyncProperty(predicate('k', lit, other), async (p) => threeWays(`SELECT k, v FROM nums_dist WHERE ${p}`)),
      { numRuns: 60 },
    );
  });

  it('Int8 identity key at the signed boundaries', async () => {
    const lit = fc.oneof(fc.integer({ min: -128, max: 127 }).map(String), fc.constantFrom('-128', '127', '-129', '128', '-1'));
    const other = fc.integer({ min: -1000, max: 1000 }).map((n) => `v >= ${n}`);
    await fc.assert(
      fc.asyncProperty(predicate('k', lit, other), async (p) => threeWays(`SELECT k, v FROM signed_dist WHERE ${p}`)),
      { numRuns: 40 },
    );
  });

  it('GLOBAL IN on the key ships a per-shard pruned set', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: 500 }), fc.integer({ min: 0, max: 500 }), async (x, y) =>
        threeWays(
          `SELECT sensor, value FROM analytics.events_dist WHERE sensor GLOBAL IN (SELECT sensor FROM analytics.events_dist WHERE value > ${x}) AND value < ${y}`,
        ),
      ),
      { numRuns: 15 },
    );
  });
});
