// Query-then-fetch on three chdb shard engines: for wide-row ORDER BY ... LIMIT queries (ties at the
// boundary, OFFSET, DESC, strings, expressions, NULLS FIRST/LAST, nan, WHERE and PREWHERE), the two
// rounds answer exactly what one round answers, and what one engine holding every row answers; round
// two moves about offset + k wide rows where one round moves offset + k from every shard. Shapes it
// does not apply to run in one round and say why.
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Topology } from '../../../shared/core/config/schema.js';
import type { ShardRequest } from '../../../shared/core/protocol/shard-wire.js';
import { runExplain, runQuery, type QueryResponse } from '../../../shared/core/scatter/run-query.js';
import { startEmbeddedCluster, type EmbeddedCluster } from '../../support/embedded-cluster.js';
import { InvokeError } from '../../../shared/core/scatter/invoker.js';
import { DDL, DIST, chdbReference, depsFor, events, load, topologyFor } from '../tput/fixture.js';

process.env.POWERTOOLS_LOG_LEVEL = 'SILENT';
let cluster: EmbeddedCluster;
let topo: Topology;

beforeAll(async () => {
  cluster = await startEmbeddedCluster({ shards: 3, withOracle: true });
  for (const ddl of DDL) await cluster.execAll(ddl);
  topo = topologyFor(3, (i) => ({ embedded: path.join(cluster.dir, `shard-${i}`) }));
  await load(cluster.shards, cluster.oracle!, events(3000, 'uniform', 5), (_, i) => i % 3);
}, 120_000);
afterAll(async () => {
  await cluster?.stop();
});

const T = DIST;
// A wide row: a 600-byte text beside the sort keys.
const WIDE = `concat(name, repeat('x', 600)) AS body, id, user, name, day, ts, amount, delta`;
// Each query, and the selected columns its sort key is a function of (all: the order is total).
const QUERIES: [string, string[] | 'all'][] = [
  // amount takes 100 values over 3000 rows: about 30 rows tie at the boundary.
  [`SELECT ${WIDE} FROM ${T} ORDER BY amount DESC LIMIT 10`, ['amount']],
  [`SELECT ${WIDE} FROM ${T} ORDER BY amount, id LIMIT 5 OFFSET 7`, 'all'],
  [`SELECT ${WIDE} FROM ${T} ORDER BY name, ts DESC LIMIT 20`, ['name', 'ts']],
  [`SELECT ${WIDE} FROM ${T} ORDER BY day LIMIT 3`, ['day']],
  [`SELECT ${WIDE} FROM ${T} WHERE flag = 1 ORDER BY amount + delta DESC, id LIMIT 12`, 'all'],
  [`SELECT ${WIDE}, amount * 2 AS a2 FROM ${T} PREWHERE user < 200 ORDER BY a2 LIMIT 8, 4`, ['a2']],
  [`SELECT ${WIDE} FROM ${T} ORDER BY nullIf(amount, 99) DESC NULLS FIRST, id LIMIT 40`, 'all'],
  [`SELECT ${WIDE} FROM ${T} ORDER BY nullIf(amount, 0) NULLS LAST LIMIT 35`, ['amount']],
  [`SELECT ${WIDE} FROM ${T} ORDER BY if(amount = 1, nan, amount / 3) LIMIT 50`, ['amount']],
];

/** The JSON size of every shard answer's rows, per round. */
function measured() {
  const d = depsFor(topo, cluster.shards);
  const bytes = { round1: 0, rows: 0 };
  const invoke = d.invoker.invoke.bind(d.invoker);
  d.invoker = {
    invoke: async (shard: number, req: ShardRequest, signal: AbortSignal) => {
      const r = await invoke(shard, req, signal);
      // The rows only: the answer's statistics (timings) vary in length from run to run.
      bytes[JSON.stringify(req).includes('_qtf_o') ? 'round1' : 'rows'] += Buffer.byteLength(JSON.stringify((r as { rows?: unknown }).rows ?? []));
      return r;
    },
  };
  return { d, bytes };
}

async function answer(sql: string, qtf: '0' | '1'): Promise<{ body: QueryResponse; bytes: { round1: number; rows: number } }> {
  const m = measured();
  const r = await runQuery({ sql, settings: { ch_scatter_query_then_fetch: qtf } }, m.d);
  expect(r.status, JSON.stringify(r.body).slice(0, 500)).toBe(200);
  const body = r.body as QueryResponse;
  expect(body.partial).toBe(false);
  return { body, bytes: m.bytes };
}

const project = (rows: Record<string, unknown>[], cols: string[] | 'all') =>
  cols === 'all' ? rows : rows.map((r) => Object.fromEntries(cols.map((c) => [c, r[c]])));

describe('query-then-fetch on chdb shards', () => {
  it('answers exactly what one round answers, and what one engine holding every row answers', async () => {
    const ref = chdbReference(cluster.oracle!);
    for (const [sql, keyCols] of QUERIES) {
      const one = await answer(sql, '0');
      const two = await answer(sql, '1');
      expect(one.body.queryThenFetch).toBeUndefined();
      expect(two.body.queryThenFetch, sql).toMatchObject({ applied: true });
      // Same rows, same order, ties broken the same way.
      expect(two.body.data, sql).toEqual(one.body.data);
      expect(two.body.meta).toEqual(one.body.meta);
      // The same cursor: round two sees the row after the page, and its bound is no part of the cursor's query.
      expect(two.body.cursor, sql).toEqual(one.body.cursor);
      // Against one engine: the same rows where the order is total, else the same sort keys in the
      // same order (which of the tied rows is each engine's choice).
      expect(project(two.body.data, keyCols), sql).toEqual(project(await ref(sql), keyCols));
      // Round one is sort keys from each shard; round two moves each wide row up to the boundary
      // once. Rows tied with the boundary come from every shard that holds them (the one-round
      // path breaks those ties on every selected column), so only a total order reaches ~1/3.
      expect(two.body.queryThenFetch!.round1!.shards).toBe(3);
      expect(one.bytes.round1).toBe(0);
      expect(two.bytes.round1, sql).toBeGreaterThan(0);
      expect(two.bytes.rows, sql).toBeLessThanOrEqual(one.bytes.rows);
      if (keyCols === 'all') expect(two.bytes.round1 + two.bytes.rows, sql).toBeLessThan(one.bytes.rows * 0.45);
    }
  }, 180_000);
});

describe('where query-then-fetch does not apply: one round, and why', () => {
  const asked = { ch_scatter_query_then_fetch: '1' };
  it.each([
    [`SELECT DISTINCT amount, name FROM ${T} ORDER BY amount LIMIT 5`, 'DISTINCT'],
    [`SELECT ${WIDE} FROM ${T} ORDER BY amount LIMIT 2 BY day LIMIT 5`, 'LIMIT BY'],
    [`SELECT ${WIDE} FROM ${T} ORDER BY amount LIMIT 5 WITH TIES`, 'WITH TIES'],
    [`SELECT ${WIDE}, row_number() OVER (ORDER BY id) AS rn FROM ${T} ORDER BY amount LIMIT 5`, 'window'],
    [`SELECT arrayJoin([1, 2]) AS j, ${WIDE} FROM ${T} ORDER BY amount, id, j LIMIT 5`, 'arrayJoin'],
    [`SELECT user, count() AS c FROM ${T} GROUP BY user ORDER BY user LIMIT 5`, 'GROUP BY'],
    [`SELECT ${WIDE} FROM ${T} ORDER BY amount, id LIMIT 5000`, 'no more rows'],
    // Array(Float64): `<` and ORDER BY disagree on nan elements, so no "after the boundary" predicate.
    [`SELECT ${WIDE} FROM ${T} ORDER BY [amount / 3], id LIMIT 5`, 'cannot be written back'],
  ])('%s', async (sql, reason) => {
    const r = await runQuery({ sql, settings: asked }, depsFor(topo, cluster.shards));
    const e = await runExplain({ sql, settings: asked }, depsFor(topo, cluster.shards));
    const one = await runQuery({ sql }, depsFor(topo, cluster.shards));
    expect(r.status).toBe(one.status);
    if (r.status === 200) {
      const b = r.body as QueryResponse;
      expect(b.queryThenFetch?.applied).toBe(false);
      expect(b.queryThenFetch?.reason).toContain(reason);
      expect(b.data).toEqual((one.body as QueryResponse).data);
    }
    if (e.status === 200 && !['no more rows', 'cannot be written back'].includes(reason))
      expect((e.body as { queryThenFetch?: { reason?: string } }).queryThenFetch?.reason).toContain(reason);
  });

  it('/explain shows round one and how round two is bounded; its round-one SQL runs on one engine', async () => {
    const sql = `SELECT ${WIDE} FROM ${T} WHERE flag = 1 ORDER BY amount DESC, id LIMIT 10 OFFSET 2`;
    const e = await runExplain({ sql, settings: asked }, depsFor(topo, cluster.shards));
    expect(e.status).toBe(200);
    const q = (e.body as { queryThenFetch: { applied: boolean; roundSql: string; round2: string } }).queryThenFetch;
    expect(q.applied).toBe(true);
    // The boundary is the first row after the page (position 12), so round two sees that more follow.
    expect(q.roundSql).toMatch(/_qtf_o0.*_qtf_o1.*LIMIT 12, 1|LIMIT 1 OFFSET 12/);
    expect(q.roundSql).not.toContain('repeat');
    const boundary = await chdbReference(cluster.oracle!)(q.roundSql);
    const all = await chdbReference(cluster.oracle!)(sql.replace('LIMIT 10', 'LIMIT 11'));
    expect(boundary).toEqual([{ _qtf_o0: all.at(-1)!.amount, _qtf_o1: all.at(-1)!.id }]);
    expect(q.round2).toMatch(/NOT/);
  });

  it('a value other than auto, 1 or 0 is a bad request, in the request settings and in SETTINGS', async () => {
    const sql = `SELECT ${WIDE} FROM ${T} ORDER BY amount, id LIMIT 5`;
    const bad = await runQuery({ sql, settings: { ch_scatter_query_then_fetch: 'maybe' } }, depsFor(topo, cluster.shards));
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.body)).toContain("ch_scatter_query_then_fetch must be 'auto', 1 or 0");
    const clause = await runQuery({ sql: `${sql} SETTINGS ch_scatter_query_then_fetch = 2` }, depsFor(topo, cluster.shards));
    expect(clause.status).toBe(400);
    const on = await runQuery({ sql: `${sql} SETTINGS ch_scatter_query_then_fetch = 1` }, depsFor(topo, cluster.shards));
    expect((on.body as QueryResponse).queryThenFetch?.applied).toBe(true);
  });

  it('a shard missing from round one: the query runs in one round, complete', async () => {
    const sql = QUERIES[1]![0];
    const d = depsFor(topo, cluster.shards, {
      fail: (s, req) => (s === 1 && JSON.stringify(req).includes('_qtf_o') ? new InvokeError('unavailable', 'shard down') : undefined),
    });
    const r = await runQuery({ sql, settings: asked }, d);
    expect(r.status).toBe(200);
    const b = r.body as QueryResponse;
    expect(b.partial).toBe(false);
    expect(b.queryThenFetch).toMatchObject({ applied: false, reason: 'a shard did not answer round one' });
    expect(b.data).toEqual((await answer(sql, '0')).body.data);
  });
});

describe('query-then-fetch property: any split of the rows, any arrival order, any page', () => {
  it('equals the one-round answer and, on a total order, one engine holding every row', async () => {
    const orders = ['amount DESC, id', 'name, ts DESC, id', 'nullIf(amount % 7, 3) NULLS FIRST, id DESC', 'day DESC, delta, id', 'amount', 'name DESC'];
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          n: fc.integer({ min: 0, max: 300 }),
          dataSeed: fc.integer({ min: 1, max: 1_000_000 }),
          split: fc.array(fc.integer({ min: 0, max: 2 }), { minLength: 1, maxLength: 17 }),
          delays: fc.array(fc.integer({ min: 0, max: 10 }), { minLength: 9, maxLength: 9 }),
          k: fc.integer({ min: 1, max: 30 }),
          m: fc.integer({ min: 0, max: 10 }),
          o: fc.integer({ min: 0, max: orders.length - 1 }),
        }),
        async ({ n, dataSeed, split, delays, k, m, o }) => {
          await load(cluster.shards, cluster.oracle!, events(n, 'uniform', dataSeed), (_, i) => split[i % split.length]!);
          const sql = `SELECT ${WIDE} FROM ${T} ORDER BY ${orders[o]} LIMIT ${k} OFFSET ${m}`;
          let call = 0;
          const d = depsFor(topo, cluster.shards, { delay: (s) => delays[(s * 3 + call++) % delays.length]! });
          const r = await runQuery({ sql, settings: { ch_scatter_query_then_fetch: '1' } }, d);
          expect(r.status, JSON.stringify(r.body).slice(0, 400)).toBe(200);
          const b = r.body as QueryResponse;
          const one = (await answer(sql, '0')).body;
          expect(b.data, sql).toEqual(one.data);
          expect(b.cursor, sql).toEqual(one.cursor);
          if (orders[o]!.endsWith('id') || orders[o]!.endsWith('id DESC')) expect(b.data, sql).toEqual(await chdbReference(cluster.oracle!)(sql));
        },
      ),
      { numRuns: 25 },
    );
  }, 300_000);
});
