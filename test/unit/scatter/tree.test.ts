// The aggregation tree (shared/core/scatter/tree*.ts) against the flat gather, on a real engine: 12
// shards' data live in one chdb session as default.events_<i> (one chdb dir per process), and a
// shard "function" runs the planned shard SQL with the table renamed to its own. Root merges of
// sub-coordinator answers must finalize to what the flat fan-out gives (and, for exact queries,
// to the single-node answer over all rows).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseTopology } from '../../../shared/core/config/load.js';
import { planQuery } from '../../../shared/core/plan/index.js';
import { createEmbeddedAccess } from '../../../shared/adapters/clickhouse/embedded.js';
import type { ClickHouseAccess } from '../../../shared/core/clickhouse/port.js';
import { executeShardRequest } from '../../../shared/core/shard/execute.js';
import { gather } from '../../../shared/core/scatter/gather.js';
import { createHedgeState } from '../../../shared/core/scatter/hedge.js';
import type { ShardInvoker } from '../../../shared/core/scatter/invoker.js';
import { InvokeError } from '../../../shared/core/scatter/invoker.js';
import type { ShardResponse } from '../../../shared/core/protocol/shard-wire.js';
import { gatherTree, runSubCoordinator, treeGroups, useTree, type TreeInvoker } from '../../../shared/core/scatter/tree.js';
import { premergeSpec } from '../../../shared/core/scatter/tree-premerge.js';
import { createSubCoordinatorFunction, createTreeLambdaInvoker } from '../../../shared/adapters/aws/tree-lambda-invoker.js';
import { startInvokeServer } from '../../../local/invoke-server.js';

const SHARDS = 12;
const ROWS = 24_000;
let dir: string;
let access: ClickHouseAccess;

const topo = parseTopology({
  cluster: 't',
  shards: Array.from({ length: SHARDS }, (_, i) => ({ replicas: [{ url: `http://shard-${i}:8123` }] })),
  tables: { 'default.events_dist': { local: 'default.events', shardingKey: { column: 'id', type: 'UInt64', function: 'identity' } } },
  query: { treeFanoutAbove: 4, topCount: 'shard_size' }, // the fast path's top-k, as the tree premerges it
});

/** Shard i answers from default.events_<i>, through the real shard core (executeShardRequest). */
const shardInvoker: ShardInvoker = {
  async invoke(shard, payload, signal) {
    const sql = payload.sql.replace(/\bdefault\.events\b/g, `default.events_${shard}`);
    const r = await executeShardRequest({ ...payload, sql }, access, { now: Date.now, signal });
    return JSON.parse(JSON.stringify(r)) as ShardResponse; // as the Invoke API would carry it
  },
};

function inProcessTree(failGroup?: number): TreeInvoker & { calls: number } {
  const t = {
    calls: 0,
    async invoke(group: number, req: Parameters<TreeInvoker['invoke']>[1]) {
      t.calls++;
      if (group === failGroup) throw new InvokeError('unhandled', 'sub-coordinator crashed', 'Runtime.ExitError');
      const res = await runSubCoordinator(JSON.parse(JSON.stringify(req)), { topo, invoker: shardInvoker, hedgeState: createHedgeState() });
      return JSON.parse(JSON.stringify(res));
    },
  };
  return t;
}

async function flat(sql: string) {
  const plan = await planQuery(sql, topo, {});
  const g = await gather({
    plan,
    topo,
    invoker: shardInvoker,
    queryId: 'q',
    deadlineAt: Date.now() + 30_000,
    now: Date.now,
    hedge: { ...topo.query.hedge, enabled: false },
    state: createHedgeState(),
  });
  return { g, fin: g.merger.finalize() };
}

async function tree(sql: string, inv: TreeInvoker, fanout = 4) {
  const plan = await planQuery(sql, topo, {});
  const groups: string[] = [];
  const g = await gatherTree({
    plan,
    topo,
    invoker: shardInvoker,
    queryId: 'q',
    deadlineAt: Date.now() + 30_000,
    now: Date.now,
    hedge: { ...topo.query.hedge, enabled: false },
    state: createHedgeState(),
    tree: inv,
    fanout,
    onGroup: (r) => groups.push('mode' in r ? r.mode : 'error'),
  });
  return { g, fin: g.merger.finalize(), groups };
}

/** Floats to 12 significant digits: a re-associated float sum may differ in the last bits. */
function canon(v: unknown): unknown {
  return JSON.parse(JSON.stringify(v), (_k, x) => (typeof x === 'number' && !Number.isInteger(x) ? Number(x.toPrecision(12)) : x));
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'tree-test-'));
  access = await createEmbeddedAccess({ path: dir });
  const cols = 'id UInt64, user UInt32, qty Int32, amount Float64, name String, day Date';
  const gen = `SELECT number AS id, toUInt32(number % 97) AS user, toInt32(number % 13) - 6 AS qty, (number % 1000) / 8 AS amount, concat('n', toString(number % 41)) AS name, toDate('2024-01-01') + number % 30 AS day FROM numbers(${ROWS})`;
  await access.exec(`CREATE TABLE default.events_all (${cols}) ENGINE = MergeTree ORDER BY id`);
  await access.exec(`INSERT INTO default.events_all ${gen}`);
  for (let i = 0; i < SHARDS; i++) {
    await access.exec(`CREATE TABLE default.events_${i} (${cols}) ENGINE = MergeTree ORDER BY id`);
    await access.exec(`INSERT INTO default.events_${i} SELECT * FROM default.events_all WHERE id % ${SHARDS} = ${i}`);
  }
}, 120_000);

afterAll(async () => {
  await access?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('treeGroups', () => {
  it('partitions in order into ceil(n/fanout) balanced groups no larger than fanout', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 2000 }), fc.integer({ min: 1, max: 300 }), (n, fanout) => {
        const xs = Array.from({ length: n }, (_, i) => i);
        const gs = treeGroups(xs, fanout);
        expect(gs.flat()).toEqual(xs);
        expect(gs.length).toBe(Math.ceil(n / fanout));
        const sizes = gs.map((g) => g.length);
        if (n > 0) {
          expect(Math.max(...sizes)).toBeLessThanOrEqual(fanout);
          expect(Math.max(...sizes) - Math.min(...sizes)).toBeLessThanOrEqual(1);
        }
      }),
    );
  });
  it('useTree follows query.treeFanoutAbove (0 = never)', () => {
    expect(useTree(topo, 4)).toBe(false);
    expect(useTree(topo, 5)).toBe(true);
    expect(useTree({ ...topo, query: { ...topo.query, treeFanoutAbove: 0 } }, 10_000)).toBe(false);
  });
});

describe('premergeSpec', () => {
  it('re-aggregates count/sum/min/max partials and refuses what it cannot', async () => {
    const shardSql = async (sql: string) => (await planQuery(sql, topo, {})).shards[0]!.sql!;
    const sql = await shardSql('SELECT user, count() AS c, sum(qty), min(day), max(name) FROM default.events_dist GROUP BY user');
    const spec = premergeSpec(sql);
    expect(spec?.keys).toEqual(['__k0']);
    // Every __aN state column of the shard SQL, each with the op its aggregate function implies.
    const cols = [...sql.matchAll(/\b(\w+)\([^()]*\) AS (__a\d+)/g)].map((m) => ({
      col: m[2]!,
      op: ({ count: 'sum', sum: 'sum', min: 'min', max: 'max' } as Record<string, string>)[m[1]!.toLowerCase()],
    }));
    expect(spec?.aggs.map(({ col, op }) => ({ col, op }))).toEqual(cols);
    // min/max carry their companion count() column: an empty shard's default is not a value.
    const countCol = cols.find((c) => c.op === 'sum' && new RegExp(`count\\(\\) AS ${c.col}`).test(sql))!.col;
    for (const a of spec!.aggs) expect(a.count).toBe(a.op === 'sum' ? undefined : countCol);
    expect(spec?.aggs.map((a) => a.op)).toEqual(expect.arrayContaining(['sum', 'min', 'max']));
    expect(premergeSpec(await shardSql('SELECT uniqExact(user) FROM default.events_dist'))).toBeUndefined();
    expect(premergeSpec(await shardSql('SELECT user, count() AS c FROM default.events_dist GROUP BY user ORDER BY c DESC LIMIT 3'))).toBeUndefined();
    expect(premergeSpec(await shardSql('SELECT id, amount FROM default.events_dist ORDER BY id LIMIT 5'))).toBeUndefined();
  });
});

describe('gatherTree vs flat gather (chdb, 12 shards, 3 sub-coordinators of 4)', () => {
  const exact = [
    'SELECT count() AS c, sum(qty) AS q, min(day) AS d0, max(name) AS n1, countIf(qty > 0) AS pos FROM default.events_dist',
    'SELECT user, count() AS c, sum(qty) AS q, min(qty) AS lo, max(day) AS hi FROM default.events_dist GROUP BY user ORDER BY user',
    'SELECT name, day, sum(id) AS s FROM default.events_dist WHERE qty > 0 GROUP BY name, day HAVING s > 1000 ORDER BY s DESC, name, day LIMIT 20',
  ];
  for (const sql of exact) {
    it(`pre-merges and equals flat and single node: ${sql.slice(0, 70)}`, async () => {
      const inv = inProcessTree();
      const t = await tree(sql, inv);
      const f = await flat(sql);
      expect(t.groups).toEqual(['premerged', 'premerged', 'premerged']);
      expect(inv.calls).toBe(3);
      expect(t.fin).toEqual(f.fin);
      expect(t.g.outcomes.map((o) => [o.shard, o.status])).toEqual(Array.from({ length: SHARDS }, (_, i) => [i, 'ok']));
      expect(t.g.outcomes.reduce((a, o) => a + (o.response?.statistics.rowsRead ?? 0), 0)).toBeGreaterThan(0);
      const single = await access.query(sql.replace('default.events_dist', 'default.events_all'));
      expect(t.fin.data).toEqual(single.rows);
    });
  }
  const relayed = [
    'SELECT user, count() AS c FROM default.events_dist GROUP BY user ORDER BY c DESC, user LIMIT 5',
    'SELECT uniqExact(name) AS u, avg(amount) AS a FROM default.events_dist',
    'SELECT id, name FROM default.events_dist ORDER BY id DESC LIMIT 7',
  ];
  for (const sql of relayed) {
    it(`relays per shard and equals flat: ${sql.slice(0, 70)}`, async () => {
      const t = await tree(sql, inProcessTree());
      const f = await flat(sql);
      expect(t.groups).toEqual(['relayed', 'relayed', 'relayed']);
      expect(t.fin).toEqual(f.fin);
    });
  }
  it('float sums pre-merge to the flat answer up to re-association', async () => {
    const sql = 'SELECT user, sum(amount) AS s, count() AS c FROM default.events_dist GROUP BY user ORDER BY user';
    const t = await tree(sql, inProcessTree(), 5);
    const f = await flat(sql);
    expect(t.groups.every((m) => m === 'premerged')).toBe(true);
    expect(canon(t.fin)).toEqual(canon(f.fin));
  });
  // Same exact summation and the same NaN/Inf semantics as the flat merge: a subtree whose sum
  // overflows to inf, or is NaN, must reach the root as such (ClickHouse's JSON would write null),
  // never be dropped as a NULL partial. Rows: shard s holds id = s (mod 12) only.
  // Each sum also through isNaN / isInfinite: the answer writes inf and nan alike as null.
  const probe = (e: string) => `${e} AS s, isNaN(${e}) AS n, isInfinite(${e}) AS i, ${e} > 0 AS p`;
  const special = [
    // inf in subtree 0 only (shard 1: two 1e308 rows overflow on the shard itself)
    [
      'inf in one subtree',
      `SELECT ${probe('sum(if(id IN (1, 13), 1e308, amount))')}, avg(if(id IN (1, 13), 1e308, amount)) AS a, count() AS c FROM default.events_dist`,
    ],
    // NaN in subtree 1 only, -inf in subtree 2, per group
    [
      'NaN and -inf per group',
      `SELECT user, ${probe('sum(multiIf(id = 5, nan, id = 10, -inf, amount))')} FROM default.events_dist GROUP BY user ORDER BY user`,
    ],
    // +inf and -inf in different subtrees: NaN overall
    ['inf + -inf across subtrees', `SELECT ${probe('sum(multiIf(id = 2, inf, id = 11, -inf, amount))')} FROM default.events_dist`],
    // a Nullable float sum: NULL partials (no non-NULL value on a shard) are skipped, inf is not
    ['Nullable float sum', `SELECT ${probe('sum(if(id % 12 < 6, NULL, if(id = 7, inf, amount)))')} FROM default.events_dist`],
    // cancellation inside one subtree that plain addition in shard order loses (1e16 + 0.1 - 1e16 = 0)
    ['exact within a subtree', 'SELECT sum(multiIf(id = 0, 1e16, id = 1, 0.1, id = 2, -1e16, 0)) AS s FROM default.events_dist'],
  ] as const;
  for (const [name, sql] of special) {
    it(`float sums with inf/NaN pre-merge to the flat answer and the single node's: ${name}`, async () => {
      const t = await tree(sql, inProcessTree(), 4);
      const f = await flat(sql);
      expect(t.groups, name).toEqual(['premerged', 'premerged', 'premerged']);
      expect(t.fin, `${name}: tree vs flat`).toEqual(f.fin);
      if (name === 'exact within a subtree') {
        // The exact sum, rounded once (a single node adding in row order gets 0 here).
        expect(t.fin.data).toEqual([{ s: 0.1 }]);
        return;
      }
      const single = await access.query(sql.replaceAll('default.events_dist', 'default.events_all'), { settings: { output_format_json_quote_denormals: 1 } });
      // The answer writes inf/-inf/nan as strings, as the single node with quoted denormals; NaN's
      // sign is not kept (docs/architecture.md#the-value-model).
      const asAnswer = (rows: Record<string, unknown>[]) =>
        rows.map((r) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, v === '-nan' ? 'nan' : v])));
      expect(t.fin.data, `${name}: tree vs single node`).toEqual(asAnswer(single.rows));
      expect(
        t.fin.data.some((r) => r.n === 1 || r.i === 1),
        `${name}: the case reaches a non-finite sum`,
      ).toBe(true);
    });
  }
  it('min/max pre-merge ignores empty shards (their engine default is not a value)', async () => {
    // Only shards 0-2 hold rows with id < 3; the rest answer min = 0 / '' with count 0.
    const sql = 'SELECT min(qty + 100) AS lo, max(name) AS hi, min(day) AS d, minIf(name, qty > 100) AS never FROM default.events_dist WHERE id < 3';
    const t = await tree(sql, inProcessTree(), 4);
    const f = await flat(sql);
    expect(t.groups).toEqual(['premerged', 'premerged', 'premerged']);
    expect(t.fin).toEqual(f.fin);
    const single = await access.query(sql.replaceAll('default.events_dist', 'default.events_all'));
    expect(t.fin.data).toEqual(single.rows);
  });
  it('a failed sub-coordinator makes exactly its shards missing; the rest is merged', async () => {
    const sql = 'SELECT count() AS c, sum(qty) AS q FROM default.events_dist';
    const t = await tree(sql, inProcessTree(1));
    expect(t.g.missing.map((m) => [m.shard, m.reason])).toEqual([4, 5, 6, 7].map((s) => [s, 'unavailable']));
    const rest = await access.query(`SELECT count() AS c, sum(qty) AS q FROM default.events_all WHERE id % ${SHARDS} NOT IN (4, 5, 6, 7)`);
    expect(t.fin.data).toEqual(rest.rows);
  });
  it('runs over the Lambda Invoke API (SDK client -> local Invoke endpoint -> sub-coordinator function)', async () => {
    const fn = createSubCoordinatorFunction({ topo, invoker: shardInvoker, hedgeState: createHedgeState() });
    const server = await startInvokeServer({ port: 0, functions: { 'ch-scatter-sub': fn } });
    const inv = createTreeLambdaInvoker({ functionName: () => 'ch-scatter-sub', endpoint: server.url });
    try {
      const sql = exact[1]!;
      const t = await tree(sql, inv);
      const f = await flat(sql);
      expect(t.groups).toEqual(['premerged', 'premerged', 'premerged']);
      expect(t.fin).toEqual(f.fin);
    } finally {
      inv.close();
      await server.close();
    }
  });
});

describe('runQuery with deps.tree (the coordinator hook)', () => {
  it('goes through sub-coordinators above treeFanoutAbove and answers as the flat coordinator does', async () => {
    const { runQuery } = await import('../../../shared/core/scatter/run-query.js');
    const sql = 'SELECT user, count() AS c, sum(qty) AS q FROM default.events_dist GROUP BY user ORDER BY c DESC, user LIMIT 3';
    const deps = { topo, invoker: shardInvoker, planQuery, hedgeState: createHedgeState(), queryId: 'q1', behindApiGateway: false };
    const inv = inProcessTree();
    const viaTree = await runQuery({ sql }, { ...deps, tree: inv });
    const viaFlat = await runQuery({ sql }, deps);
    expect(viaTree.status).toBe(200);
    expect(inv.calls).toBe(3);
    const body = (r: typeof viaTree) => {
      const b = r.body as { data: unknown; shards: { queried: number; succeeded: number } };
      return { data: b.data, queried: b.shards.queried, succeeded: b.shards.succeeded };
    };
    expect(body(viaTree)).toEqual(body(viaFlat));
    expect(body(viaTree).succeeded).toBe(SHARDS);
    const small = await runQuery({ sql: 'SELECT count() AS c FROM default.events_dist WHERE id IN (1, 2)' }, { ...deps, tree: inv });
    expect(inv.calls).toBe(3); // 2 queried shards: at or below treeFanoutAbove, no tree
    expect((small.body as { data: unknown }).data).toEqual([{ c: '2' }]);
  });
});
