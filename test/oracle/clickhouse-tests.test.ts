// ClickHouse's own Distributed-table tests as the oracle: every SELECT of clickhouse-tests/corpus.ts
// through the local stack's POST /query (four chdb shard processes, rows placed by its router),
// compared with one chdb node holding every row (names, types, rows; order where the query orders).
//
// Each query ends one of three ways: equal; refused (an HTTP error with ClickHouse's code); or an
// answer that differs. A difference labelled complete fails the test unless EXPECTED lists it with a
// reason that is not a wrong answer; a refusal must be listed with its reason; and a listed query
// that now answers equal fails the test too, so the list stays true.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compareAnswers } from './compare.js';
import { CHT_CORPUS } from './clickhouse-tests/corpus.js';
import { EXPECTED } from './clickhouse-tests/expectations.js';
import { type ChtStack, startChtStack } from './clickhouse-tests/stack.js';
import { queryApiRunner } from './harness.js';
import { CHT_TABLES, toChtLocalNames } from './clickhouse-tests/tables.js';

type Outcome = { id: string; kind: 'equal' | 'refused' | 'differs'; problem?: string };

let o: ChtStack;
beforeAll(async () => {
  o = await startChtStack();
}, 120_000);
afterAll(async () => {
  await o?.stop();
});

const firstLine = (e: unknown) => (e instanceof Error ? e.message : String(e)).split('\n')[0]!.slice(0, 300);

async function runAll(): Promise<Outcome[]> {
  const run = queryApiRunner(o.stack.url, { timeoutMs: 20_000 });
  const out: Outcome[] = [];
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < CHT_CORPUS.length; i = next++) {
      const c = CHT_CORPUS[i]!;
      const [got, want] = await Promise.allSettled([run(c.sql), o.reference(c.sql)]);
      if (want.status === 'rejected') {
        // ClickHouse refuses it on one node: the stack must refuse it too (with ClickHouse's code).
        out[i] =
          got.status === 'rejected'
            ? { id: c.id, kind: 'equal' }
            : { id: c.id, kind: 'differs', problem: `answered what one node refuses: ${firstLine(want.reason)}` };
      } else if (got.status === 'rejected') out[i] = { id: c.id, kind: 'refused', problem: firstLine(got.reason) };
      else {
        const problem = compareAnswers(got.value, want.value, { ordered: c.ordered === true });
        out[i] = problem === undefined ? { id: c.id, kind: 'equal' } : { id: c.id, kind: 'differs', problem: problem.slice(0, 300) };
      }
    }
  };
  await Promise.all([worker(), worker()]);
  return out;
}

describe("ClickHouse's Distributed-table tests on the local stack", () => {
  it('loaded every table through the router', () => {
    for (const t of CHT_TABLES)
      expect(
        o.inserted.get(t.dist)!.reduce((a, b) => a + b, 0),
        t.dist,
      ).toBe(t.rows.length);
  });

  it('answers every query as one node does, or refuses or differs only as listed', async () => {
    const outcomes = await runAll();
    const byKind = (k: Outcome['kind']) => outcomes.filter((x) => x.kind === k);
    console.log(
      `[oracle/clickhouse-tests] taken ${outcomes.length}, equal ${byKind('equal').length}, refused ${byKind('refused').length}, differing ${byKind('differs').length}`,
    );
    const unlisted = outcomes.filter((x) => x.kind !== 'equal' && EXPECTED[x.id]?.kind !== x.kind).map((x) => `${x.id} [${x.kind}]: ${x.problem}`);
    expect(unlisted, 'not listed in clickhouse-tests/expectations.ts').toEqual([]);
    const stale = Object.keys(EXPECTED).filter((id) => outcomes.find((x) => x.id === id)?.kind !== EXPECTED[id]!.kind);
    expect(stale, 'listed but no longer so: remove or correct them in expectations.ts').toEqual([]);
    expect(outcomes.length).toBe(CHT_CORPUS.length);
  }, 300_000);
});

// Shapes clients send that ClickHouse's tests above do not hold, compared the same way.
const CLIENT_SHAPES = [
  // Grafana's trace view: a WITH alias used inside a scalar subquery over a distributed table.
  "WITH (SELECT count() FROM cht.kv_dist WHERE value = v) AS x, 'v1' AS v SELECT x, count() FROM cht.kv_dist",
  "WITH 'v2' AS v SELECT count() FROM cht.kv_dist WHERE key GLOBAL IN (SELECT key FROM cht.kv_dist WHERE value = v)",
  'WITH 3 AS lim SELECT key FROM (SELECT key FROM cht.kv_dist WHERE key < lim) ORDER BY key',
  // generateRandom() with a seed: every shard and the single node draw the same rows.
  "SELECT count() FROM cht.numbers_dist WHERE number IN (SELECT toUInt64(a) FROM generateRandom('a UInt8', 42) LIMIT 100)",
  "SELECT n.a, count() FROM cht.numbers_dist AS t JOIN (SELECT a FROM generateRandom('a UInt16', 7) LIMIT 300) AS n ON t.number = n.a GROUP BY n.a ORDER BY n.a",
  "SELECT count(), (SELECT sum(length(s)) FROM (SELECT s FROM generateRandom('s String, a Array(Int8)', 3, 20, 4) LIMIT 50)) FROM cht.numbers_dist",
];

describe('client shapes on the local stack', () => {
  for (const sql of CLIENT_SHAPES) {
    it(sql, async () => {
      const got = await queryApiRunner(o.stack.url, { timeoutMs: 20_000 })(sql);
      expect(compareAnswers(got, await o.reference(sql), { ordered: /ORDER BY/.test(sql) })).toBeUndefined();
    });
  }
});

// -0 (a Float just below 0, rounded): ClickHouse's JSON writes the number -0; the JSON API writes it so on both paths.
describe('-0 in the JSON API, as ClickHouse writes it', () => {
  const sql = 'SELECT round(number / 10 - 0.04) AS r, toFloat32(r) AS f, toNullable(r) AS n, count() AS c FROM cht.numbers10_dist WHERE number = 0 GROUP BY r';
  for (const path of ['fast', 'general'])
    it(`the ${path} path`, async () => {
      const res = await fetch(`${o.stack.url}/query`, { method: 'POST', body: JSON.stringify({ sql, settings: { ch_scatter_path: path } }) });
      const text = await res.text();
      expect(res.status, text.slice(0, 300)).toBe(200);
      const want = await o.single.json(toChtLocalNames(sql));
      const got = JSON.parse(text) as { data: Record<string, unknown>[] };
      expect(text).toContain('"r":-0,"f":-0,"n":-0,"c"');
      for (const k of ['r', 'f', 'n']) {
        expect(Object.is(got.data[0]![k], want.data[0]![k]), `${k}: ${got.data[0]![k]} vs ${want.data[0]![k]}`).toBe(true);
      }
    });
});

// The two queries one chdb node fails on (expectations.ts): the rows ClickHouse's .reference shows.
describe('additional_result_filter with an IN subquery, as the .reference answers it', () => {
  it('x in (select number from numbers(3)); c in (select 8)', async () => {
    const run = queryApiRunner(o.stack.url, { timeoutMs: 20_000 });
    const byId = (id: string) => CHT_CORPUS.find((c) => c.id === id)!.sql;
    expect((await run(byId('02346_additional_filters#25'))).rows).toEqual([
      { x: 1, y: 'a' },
      { x: 2, y: 'bb' },
    ]);
    expect((await run(byId('02346_additional_filters#26'))).rows).toEqual([{ c: '8' }]);
  });
});

// A filter is SQL of the query: what the query may not reach, it may not reach either.
describe('a table or result filter passes the reach check like the query', () => {
  for (const [sql, code] of [
    ["SELECT * FROM cht.xy_dist AS t SETTINGS additional_table_filters = {'t': 'x IN (SELECT toUInt32(number) FROM system.numbers LIMIT 3)'}", 'UNKNOWN_TABLE'],
    ["SELECT * FROM cht.xy_dist AS t SETTINGS additional_table_filters = {'t': 'file(''/etc/passwd'') != '''''}", 'UNSUPPORTED'],
    ["SELECT * FROM cht.xy_dist SETTINGS additional_result_filter = 'x IN (SELECT 1 FROM url(''http://127.0.0.1:1/''))'", 'UNSUPPORTED'],
  ] as const)
    it(sql, async () => {
      const res = await fetch(`${o.stack.url}/query`, { method: 'POST', body: JSON.stringify({ sql }) });
      const body = (await res.json()) as { error?: { code: string; position?: unknown } };
      expect(res.status).toBe(400);
      expect(body.error?.code).toBe(code);
      expect(body.error?.position).toBeDefined();
    });
});

describe('the corpus', () => {
  it('has unique ids, names a source test for each query, and lists only queries it holds', () => {
    expect(new Set(CHT_CORPUS.map((c) => c.id)).size).toBe(CHT_CORPUS.length);
    for (const c of CHT_CORPUS) expect(c.source).toMatch(/^\d{5}_\w+\.sql$/);
    for (const id of Object.keys(EXPECTED))
      expect(
        CHT_CORPUS.some((c) => c.id === id),
        id,
      ).toBe(true);
    for (const [id, e] of Object.entries(EXPECTED)) expect(e.why.length, id).toBeGreaterThan(20);
  });
});
