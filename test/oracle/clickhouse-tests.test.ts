// ClickHouse's own Distributed-table tests as the oracle: every SELECT of clickhouse-tests/corpus.ts
// through the local stack's POST /query (four chdb shard processes, rows placed by its router),
// compared with one chdb node holding every row (names, types, rows; order where the query orders).
//
// A query whose test's .reference shows ClickHouse's Distributed answer unlike one node's
// (`distributed` in corpus.ts) is compared with that answer over this stack's placement instead.
// Each query ends one of three ways: equal; refused (an HTTP error with ClickHouse's code); or an
// answer that differs. A difference labelled complete fails the test unless EXPECTED lists it with a
// reason that is not a wrong answer; a refusal must be listed with its reason; and a listed query
// that now answers equal fails the test too, so the list stays true.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compareAnswers, renamed } from './compare.js';
import { CHT_CORPUS } from './clickhouse-tests/corpus.js';
import { EXPECTED } from './clickhouse-tests/expectations.js';
import { useChtStack } from './clickhouse-tests/stack.js';
import { queryApiRunner, truncatedAnswer } from './harness.js';
import { CHT_TABLES, toChtLocalNames } from './clickhouse-tests/tables.js';

type Outcome = { id: string; kind: 'equal' | 'refused' | 'differs'; problem?: string };

const o = useChtStack();

const firstLine = (e: unknown) => (e instanceof Error ? e.message : String(e)).split('\n')[0]!.slice(0, 300);

async function runAll(): Promise<Outcome[]> {
  const complete = queryApiRunner(o.stack.url, { timeoutMs: 20_000 });
  const cut = queryApiRunner(o.stack.url, { timeoutMs: 20_000, requireComplete: false });
  const run = (c: (typeof CHT_CORPUS)[number]) => (c.truncates ? cut(c.sql).then(truncatedAnswer) : complete(c.sql));
  const out: Outcome[] = [];
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < CHT_CORPUS.length; i = next++) {
      const c = CHT_CORPUS[i]!;
      const [got, one] = await Promise.allSettled([run(c), o.reference(c.sql)]);
      let want = c.distributed && one.status === 'fulfilled' ? { ...one, value: { ...one.value, rows: c.distributed((t) => o.inserted.get(t)!) } } : one;
      if (c.names && want.status === 'fulfilled') want = { ...want, value: renamed(want.value, c.names) };
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

// The sharding key's constant operands through the runtime: folded once on one shard's engine, so the
// shards asked are those the same values written as literals ask, under force_optimize_skip_unused_shards
// too; an operand the engine refuses is ClickHouse's error, at the operand.
describe('constant operands on the sharding key through POST /query', () => {
  type Body = {
    data?: unknown[];
    shards?: { skipped: number };
    statistics?: { shards?: { shard: number }[] };
    error?: { code: string; position?: unknown };
    clickhouse?: { code: number };
  };
  const post = async (route: string, sql: string, settings: Record<string, unknown> = {}) => {
    const res = await fetch(`${o.stack.url}${route}`, { method: 'POST', body: JSON.stringify({ sql, settings }) });
    return { status: res.status, body: (await res.json()) as Body };
  };
  const SKIP = { optimize_skip_unused_shards: 1, force_optimize_skip_unused_shards: 1 };
  it.each([
    ['key = toInt32(xxHash32(0))', 'key = toInt32(xxHash32(0))'],
    ['key = 1 + 2', 'key = 3'],
    ["key = toInt32('4')", 'key = 4'],
    ['toInt8(5) = key', '5 = key'],
    ['key IN (1 + 1, toInt32(5))', 'key IN (2, 5)'],
    ['key IN (toUInt8(1))', 'key IN (1)'],
  ])('%s asks the shards %s asks, and answers as one node', async (constants, literals) => {
    const sql = (where: string) => `SELECT key, value FROM cht.kvs_dist WHERE ${where} ORDER BY key`;
    // The first pair's literal: the value one engine folds it to.
    const literal = constants === literals ? `key = ${(await o.single.json('SELECT toInt32(xxHash32(0)) AS v')).data[0]!.v}` : literals;
    const [got, want] = await Promise.all([post('/query', sql(constants), SKIP), post('/query', sql(literal), SKIP)]);
    expect(got.status, JSON.stringify(got.body)).toBe(200);
    expect(want.status).toBe(200);
    expect(got.body.data).toEqual(want.body.data);
    expect(got.body.data).toEqual((await o.single.json(toChtLocalNames(sql(constants)))).data);
    expect(got.body.shards!.skipped).toBeGreaterThan(0);
    expect(got.body.shards!.skipped).toBe(want.body.shards!.skipped);
    const asked = (b: Body) => (b.statistics?.shards ?? []).map((s) => s.shard).sort();
    expect(asked(got.body)).toEqual(asked(want.body));
  });
  it("the ClickHouse interface (the general path's leaves) skips the shards the literal skips, and says which", async () => {
    const skipped = async (where: string) => {
      const res = await fetch(`${o.stack.url}/?force_optimize_skip_unused_shards=1&default_format=JSONEachRow`, {
        method: 'POST',
        body: `SELECT key, value FROM cht.kvs_dist WHERE ${where} ORDER BY key`,
      });
      const body = await res.text();
      expect(res.status, body).toBe(200);
      const shards = JSON.parse(res.headers.get('x-ch-scatter-skipped-shards') ?? '[]') as { shard: number }[];
      return { body, shards: shards.map((x) => x.shard) };
    };
    const folded = await skipped('key IN (1 + 1, toInt32(5))');
    expect(folded.shards.length).toBeGreaterThan(0);
    expect(folded).toEqual(await skipped('key IN (2, 5)'));
  });
  it("/explain names the constant in the skipped shards' reason", async () => {
    const r = await post('/explain', 'SELECT key FROM cht.kvs_dist WHERE key = 1 + 2', SKIP);
    const shards = (r.body as unknown as { shards: { skipped: boolean; reason?: string }[] }).shards;
    expect(shards.filter((s) => s.skipped).map((s) => s.reason)).toEqual(Array(3).fill('no value of key = 1 + 2 lives on this shard'));
  });
  it("an operand the engine refuses is ClickHouse's error, at the operand; without skipping the shards refuse it alike", async () => {
    const sql = "SELECT key FROM cht.kvs_dist WHERE key = toInt32('x1')";
    const code = Number(/Code: (\d+)/.exec(String(await o.single.json(toChtLocalNames(sql)).catch((e: unknown) => e)))?.[1]);
    expect(code).toBeGreaterThan(0);
    const folded = await post('/query', sql, SKIP);
    expect([folded.status, folded.body.error?.code, folded.body.clickhouse?.code]).toEqual([400, 'QUERY_ERROR', code]);
    expect(folded.body.error?.position).toEqual({ line: 1, column: 42 });
    // The engine's words, without the coordinator's own SELECT or a stack.
    expect(JSON.stringify(folded.body)).not.toMatch(/_c0|\\n\s+at /);
    const plain = await post('/query', sql, { optimize_skip_unused_shards: 0 });
    expect([plain.status, plain.body.clickhouse?.code]).toEqual([400, code]);
  });
});

describe('the corpus', () => {
  it('has unique ids, names a source test for each query, and lists only queries it holds', () => {
    expect(new Set(CHT_CORPUS.map((c) => c.id)).size).toBe(CHT_CORPUS.length);
    for (const c of CHT_CORPUS) expect(c.source).toMatch(/^\d{5}_[\w-]+\.sql$/);
    for (const id of Object.keys(EXPECTED))
      expect(
        CHT_CORPUS.some((c) => c.id === id),
        id,
      ).toBe(true);
    for (const [id, e] of Object.entries(EXPECTED)) expect(e.why.length, id).toBeGreaterThan(20);
  });
});

// The unmerged answer through /explain and ClickHouse's interface: the same cut, the same rows.
describe('distributed_group_by_no_merge through /explain and the ClickHouse interface', () => {
  const SQL = 'SELECT key, count() AS c FROM cht.key3_dist GROUP BY key';
  it('/explain shows the whole query on each shard and a final stage that only concatenates', async () => {
    const res = await fetch(`${o.stack.url}/explain`, { method: 'POST', body: JSON.stringify({ sql: SQL, settings: { distributed_group_by_no_merge: 1 } }) });
    const e = (await res.json()) as { path: string; fastPathRefused?: string; notes: string[]; finalStage: { sql: string } };
    expect(e.path).toBe('general');
    expect(e.fastPathRefused).toMatch(/distributed_group_by_no_merge = 1 asks for the shards' answers unmerged/);
    expect(e.notes.join('\n')).toMatch(/_stage0: distributed_group_by_no_merge = 1: each shard runs the whole query/);
    expect(e.notes.join('\n')).toMatch(/each shard runs SELECT key AS _c0, count\(\) AS _c1 FROM cht\.key3_dist GROUP BY key/);
    expect(e.finalStage.sql).toBe('SELECT _c0 AS key, _c1 AS c FROM _stage0');
  });
  it('the interface (the setting as a URL parameter) answers a group per shard, as the JSON API does', async () => {
    const res = await fetch(`${o.stack.url}/?distributed_group_by_no_merge=1&default_format=JSONEachRow`, { method: 'POST', body: SQL });
    expect(res.status).toBe(200);
    const rows = (await res.text())
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { key: number; c: string });
    const api = await queryApiRunner(o.stack.url, { timeoutMs: 20_000, settings: { distributed_group_by_no_merge: 1 } })(SQL);
    const key = (r: { key: unknown; c: unknown }) => `${r.key}:${r.c}`;
    expect(rows.map(key).sort()).toEqual(api.rows.map((r) => key(r as { key: unknown; c: unknown })).sort());
    // Three keys over four shards: more groups than keys, and every row counted once.
    expect(rows.length).toBeGreaterThan(3);
    expect(rows.reduce((a, r) => a + Number(r.c), 0)).toBe(CHT_TABLES.find((t) => t.dist === 'cht.key3_dist')!.rows.length);
  });
  it('a subquery the coordinator runs once (GLOBAL IN, a scalar) runs unmerged too, by either setting, as a Distributed table runs it', async () => {
    const answer = async (sql: string, settings: Record<string, unknown> = {}) => {
      const res = await fetch(`${o.stack.url}/query`, { method: 'POST', body: JSON.stringify({ sql, settings }) });
      return { status: res.status, body: (await res.json()) as { data?: { c: string }[]; error?: { code: string; message: string } } };
    };
    const gin = 'SELECT count() AS c FROM cht.kv_dist WHERE key GLOBAL IN (SELECT key FROM cht.kv_dist WHERE key < 5)';
    const merged = Number((await answer(gin)).body.data![0]!.c);
    for (const [sql, settings] of [
      [`${gin} SETTINGS distributed_group_by_no_merge = 1`, {}],
      [gin, { distributed_group_by_no_merge: 2 }],
    ] as const) {
      const r = await answer(sql, settings);
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      // One count per shard asked, adding up to the merged count: the set is whole, the answer unmerged.
      expect(r.body.data!.length).toBeGreaterThan(1);
      expect(r.body.data!.reduce((a, x) => a + Number(x.c), 0)).toBe(merged);
    }
    // A scalar over several shards unmerged has a row per shard: ClickHouse's own 125, raised by the shard.
    const scalar = await answer('SELECT count(), (SELECT max(key) FROM cht.kv_dist) FROM cht.kv_dist SETTINGS distributed_group_by_no_merge = 1');
    expect([scalar.status, scalar.body.error?.code, scalar.body.error?.message]).toEqual([400, 'QUERY_ERROR', expect.stringMatching(/error 125/)]);
  });
  it('2 is the per-shard groups of 1, sorted and cut once over every shard (groups spanning shards, random ORDER BY and LIMIT)', async () => {
    type G = { key: number; c: string; m: number };
    const run = (sql: string, mode: 1 | 2) => queryApiRunner(o.stack.url, { timeoutMs: 20_000, settings: { distributed_group_by_no_merge: mode } })(sql);
    const cols = { key: (g: G) => g.key, c: (g: G) => Number(g.c), m: (g: G) => g.m };
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 2, max: 5 }),
        fc.shuffledSubarray(['key', 'c', 'm'] as const, { minLength: 1 }),
        fc.array(fc.boolean(), { minLength: 3, maxLength: 3 }),
        fc.integer({ min: 0, max: 14 }),
        fc.integer({ min: 0, max: 6 }),
        async (p, by, desc, limit, offset) => {
          // max(id) differs on every shard's group: with it last, the order is total.
          const keys = [...by.filter((k) => k !== 'm'), 'm' as const];
          const base = `SELECT key, count() AS c, max(id) AS m FROM cht.key3_dist WHERE id % ${p} != 0 GROUP BY key`;
          const order = ` ORDER BY ${keys.map((k, i) => `${k}${desc[i] ? ' DESC' : ''}`).join(', ')}`;
          const got = (await run(`${base}${order} LIMIT ${limit} OFFSET ${offset}`, 2)).rows as G[];
          const groups = (await run(base, 1)).rows as G[];
          const cmp = (a: G, b: G) => {
            for (const [i, k] of keys.entries()) {
              const d = cols[k](a) - cols[k](b);
              if (d !== 0) return desc[i] ? -d : d;
            }
            return 0;
          };
          expect(got).toEqual([...groups].sort(cmp).slice(offset, offset + limit));
          // More groups than keys: the shards' groups were not merged.
          expect(groups.length).toBeGreaterThan(3);
        },
      ),
      { numRuns: 12 },
    );
  });
});

// extremes = 1 through POST /query: the answer's `extremes` (min and max rows over the whole answer,
// after LIMIT, absent over no rows) equal chdb's own JSON of the same query over every row.
describe('extremes through POST /query', () => {
  const SHAPES: Array<[string, Record<string, unknown>?]> = [
    ['SELECT number % 7 AS k, count() AS c, max(number) AS m FROM cht.numbers_dist GROUP BY k ORDER BY k SETTINGS extremes = 1'],
    ['SELECT number, toString(number) AS s FROM cht.numbers_dist ORDER BY number DESC LIMIT 5 OFFSET 3 SETTINGS extremes = 1'],
    ['SELECT number % 3 AS k, count() AS c FROM cht.numbers_dist GROUP BY k WITH TOTALS ORDER BY k', { extremes: 1 }],
    ['SELECT key, value FROM cht.kv_dist WHERE key = 3 SETTINGS extremes = 1'],
    ['SELECT count() AS c, sum(number) AS s FROM cht.numbers_dist SETTINGS extremes = 1'],
    ['SELECT number FROM cht.numbers_dist WHERE number > 5000 SETTINGS extremes = 1'],
    ['SELECT count() FROM cht.numbers_dist SETTINGS extremes = 0'],
    // A GLOBAL subquery runs on its own, without extremes: only the answer has them.
    ['SELECT key, count() AS c FROM cht.kv_dist WHERE key GLOBAL IN (SELECT key FROM cht.kv_dist WHERE key < 5) GROUP BY key ORDER BY key', { extremes: 1 }],
  ];
  for (const [sql, settings] of SHAPES) {
    it(`${sql}${settings ? ` (settings ${JSON.stringify(settings)})` : ''}`, async () => {
      const got = await queryApiRunner(o.stack.url, { timeoutMs: 20_000, ...(settings ? { settings } : {}) })(sql);
      const refSql = settings ? `${sql} SETTINGS extremes = 1` : sql;
      const want = await o.reference(refSql);
      expect(compareAnswers(got, want, { ordered: /ORDER BY/.test(sql) })).toBeUndefined();
      expect(got.extremes !== undefined).toBe(/extremes = 1|"extremes":1/.test(refSql) && want.rows.length > 0);
    });
  }
  it("the ClickHouse interface takes it in the SQL's SETTINGS too: the engine's own extremes block", async () => {
    const sql = 'SELECT number % 3 AS k, count() AS c FROM cht.numbers_dist GROUP BY k ORDER BY k SETTINGS extremes = 1';
    const res = await fetch(`${o.stack.url}/?output_format_json_quote_64bit_integers=1`, { method: 'POST', body: `${sql} FORMAT JSON` });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { extremes?: unknown };
    expect(body.extremes).toEqual((await o.single.json(toChtLocalNames(sql))).extremes);
  });
  it('the fast path refuses it, so ch_scatter_path = fast says why', async () => {
    const res = await fetch(`${o.stack.url}/query`, {
      method: 'POST',
      body: JSON.stringify({ sql: 'SELECT count() FROM cht.numbers_dist SETTINGS extremes = 1', settings: { ch_scatter_path: 'fast' } }),
    });
    const b = (await res.json()) as { error?: { code: string; message: string } };
    expect(`${res.status} ${b.error?.code}: ${b.error?.message}`).toMatch(/^400 UNSUPPORTED: extremes = 1 asks for the answer's min and max rows/);
  });
  it('a value that is not a boolean is refused with its position', async () => {
    const res = await fetch(`${o.stack.url}/query`, {
      method: 'POST',
      body: JSON.stringify({ sql: "SELECT count() FROM cht.numbers_dist SETTINGS extremes = 'x'" }),
    });
    const b = (await res.json()) as { error?: { code: string; position?: unknown } };
    expect([res.status, b.error?.code, b.error?.position]).toEqual([400, 'BAD_REQUEST', { line: 1, column: 58 }]);
  });
});

// A subquery the coordinator runs once before the shards (scalar, GLOBAL IN) that the fast path
// refuses runs on the general path, compared with one chdb node; an aggregate state is refused, not altered.
describe('subqueries the fast path refuses, run once on the general path', () => {
  const SHAPES = [
    'SELECT count() AS c, (SELECT uniq(number) FROM cht.numbers_dist) AS u FROM cht.numbers_dist',
    'SELECT count() FROM cht.numbers_dist WHERE number > (SELECT uniq(number) - 100 FROM cht.numbers_dist)',
    'SELECT count() FROM cht.kv_dist WHERE key GLOBAL IN (SELECT key FROM cht.kv_dist GROUP BY key HAVING uniq(value) = 1)',
    'SELECT count() FROM cht.numbers_dist WHERE number GLOBAL IN (SELECT arrayJoin(groupArray(3)(number)) FROM (SELECT number FROM cht.numbers10_dist ORDER BY number))',
  ];
  for (const sql of SHAPES) {
    it(sql, async () => {
      const got = await queryApiRunner(o.stack.url, { timeoutMs: 20_000 })(sql);
      expect(compareAnswers(got, await o.reference(sql), { ordered: false })).toBeUndefined();
    });
  }
  it("a GLOBAL JOIN subquery without an alias is ClickHouse's 206, unless joined_subquery_requires_alias = 0", async () => {
    const sql = 'SELECT count() FROM cht.kv_dist GLOBAL INNER JOIN (SELECT key FROM cht.kv_dist WHERE key < 5 GROUP BY key HAVING uniq(value) = 1) USING key';
    const res = await fetch(`${o.stack.url}/query`, { method: 'POST', body: JSON.stringify({ sql }) });
    const b = (await res.json()) as { error?: { code: string }; clickhouse?: { code: number } };
    expect([res.status, b.error?.code, b.clickhouse?.code]).toEqual([400, 'QUERY_ERROR', 206]);
    const off = `${sql} SETTINGS joined_subquery_requires_alias = 0`;
    expect(compareAnswers(await queryApiRunner(o.stack.url, { timeoutMs: 20_000 })(off), await o.reference(off), { ordered: false })).toBeUndefined();
  });
  it("an aggregate state as a scalar's value travels as the engine's bytes: the shards read the state back exactly", async () => {
    const sql =
      'SELECT count() AS c, sum(number) AS s FROM cht.numbers_dist WHERE bitmapContains((SELECT groupBitmapState(toUInt32(number)) FROM cht.numbers_dist WHERE number % 7 = 3), toUInt32(number))';
    const got = await queryApiRunner(o.stack.url, { timeoutMs: 20_000 })(sql);
    expect(compareAnswers(got, await o.reference(sql), { ordered: false })).toBeUndefined();
  });
});
