// A JSON column through the whole stack (cht.json_dist of clickhouse-tests/tables.ts on four chdb
// shards), on both paths and through the ClickHouse interface, compared with one chdb node holding
// every row. Each answer is the node's exactly, or a refusal with ClickHouse's code: never a value
// whose type changed on the way (TabSeparated writes a Dynamic value without its type, so the String
// "1" would come back as the Int64 1, and a JSON Float64 1.0 as an Int64: the general path carries
// such values between its stages as aggregate states, state-carrier.ts).
import { describe, expect, it } from 'vitest';
import { compareAnswers } from './compare.js';
import { useChtStack } from './clickhouse-tests/stack.js';

const o = useChtStack();

type Path = 'auto' | 'fast' | 'general';
/** 'equal', or the JSON API's error code with ClickHouse's code on the interface. */
type Fate = 'equal' | 'UNSUPPORTED' | 'QUERY_ERROR 44' | 'QUERY_ERROR 43';
const ALL_EQUAL = { auto: 'equal', fast: 'equal', general: 'equal', ch: 'equal' } as const;
const CARRIED = { auto: 'equal', general: 'equal', ch: 'equal' } as const;
/** A Variant of the String of an even id and the UInt32 of an odd one. */
const VARIANT = 'if(id % 2 = 0, toString(id)::Variant(String)::Variant(String, UInt32), toUInt32(id)::Variant(String, UInt32))';

const SHAPES: Array<[string, Partial<Record<Path | 'ch', Fate>>]> = [
  // Typed paths, values computed on the shards and aggregates of typed paths: answered on every path.
  ['SELECT j.a.:Int64 AS x, count() AS c FROM cht.json_dist GROUP BY x ORDER BY x', ALL_EQUAL],
  ['SELECT j.a.:String AS s, j.b.c.:Int64 AS c FROM cht.json_dist ORDER BY id', ALL_EQUAL],
  ["SELECT id FROM cht.json_dist WHERE j.a.:String = 'x' OR j.b.c.:Int64 = 2 ORDER BY id", ALL_EQUAL],
  ['SELECT id, dynamicType(j.a) AS t FROM cht.json_dist ORDER BY id', ALL_EQUAL],
  ['SELECT dynamicType(j.a) AS t, count() AS c FROM cht.json_dist GROUP BY t ORDER BY t', ALL_EQUAL],
  ['SELECT max(j.a.:Int64) AS m, sum(j.b.c.:Int64) AS s, countIf(j.f.:Bool) AS f FROM cht.json_dist', ALL_EQUAL],
  ['SELECT id, JSONAllPathsWithTypes(j) AS p FROM cht.json_dist ORDER BY id', ALL_EQUAL],
  ['SELECT id FROM cht.json_dist WHERE j.a.:String GLOBAL IN (SELECT j.a.:String FROM cht.json_dist WHERE id = 5) ORDER BY id', ALL_EQUAL],
  ['SELECT id, dynamicType(j.a) AS t, row_number() OVER (ORDER BY id) AS r FROM cht.json_dist ORDER BY id', { auto: 'equal', general: 'equal', ch: 'equal' }],
  // Aggregate states of a Dynamic or JSON value travel as the engine's bytes: exact on the general path.
  // (The String "1" of id 5 keeps its type; the final stage reads the types off the merged states.)
  [
    'SELECT dynamicType(argMax(j.a, id = 5)) AS t, toString(argMax(j.a, id = 5)) AS v, arraySort(arrayMap(x -> dynamicType(x), groupArray(j.a))) AS ts FROM cht.json_dist',
    { auto: 'equal', general: 'equal', ch: 'equal' },
  ],
  // The fast path has no value for a JSON object, found as the rows arrive: the automatic choice goes general.
  ['SELECT argMax(j, id) AS a, argMin(j.^b, id) AS b FROM cht.json_dist', { auto: 'equal', fast: 'UNSUPPORTED', general: 'equal', ch: 'equal' }],
  // Pruned to one shard, the query runs there in one request: nothing travels between stages.
  ['SELECT id, j, j.a FROM cht.json_dist WHERE id = 5', { auto: 'equal', general: 'equal', ch: 'equal' }],
  // A JSON or Dynamic value itself: the fast path has no value for an object (the automatic choice goes
  // general), and the general path's stages carry it as a state, with its types. A Dynamic value the fast
  // path passes on unordered is the node's (the JSON API quotes 64-bit integers as the node does).
  ['SELECT id, j FROM cht.json_dist ORDER BY id', { ...CARRIED, fast: 'UNSUPPORTED' }],
  ['SELECT * FROM cht.json_dist ORDER BY id', { ...CARRIED, fast: 'UNSUPPORTED' }],
  ['SELECT j.^b AS b FROM cht.json_dist ORDER BY id', { ...CARRIED, fast: 'UNSUPPORTED' }],
  ['SELECT j, count() AS c FROM cht.json_dist GROUP BY j ORDER BY j', { ...CARRIED, fast: 'UNSUPPORTED' }],
  ['SELECT id, j FROM cht.json_dist ORDER BY id DESC LIMIT 3', { ...CARRIED, fast: 'UNSUPPORTED' }],
  ['SELECT a.id, a.j, b.x FROM cht.json_dist AS a GLOBAL JOIN (SELECT id, j.a.:Int64 AS x FROM cht.json_dist) AS b ON a.id = b.id ORDER BY a.id', CARRIED],
  // The fast path's shards break ORDER BY ties with the selected columns but a JSON path (a Dynamic sort key is
  // ClickHouse's 44): answered as the node answers; ordered by the path itself, ClickHouse's 44 as on the node.
  ['SELECT id, j.a FROM cht.json_dist ORDER BY id', { ...CARRIED, fast: 'equal' }],
  ['SELECT t.id, t.j.a, j.b.c, j.a.:Int64 AS x FROM cht.json_dist AS t ORDER BY id DESC LIMIT 4', { ...CARRIED, fast: 'equal' }],
  ['SELECT id, j.a FROM cht.json_dist ORDER BY j.a', { auto: 'QUERY_ERROR 44', fast: 'QUERY_ERROR 44' }],
  ['SELECT j.k2.k4 FROM cht.json_dist WHERE id < 2', ALL_EQUAL],
  // A GLOBAL JOIN or IN set, or a scalar, of JSON, Dynamic or Variant values: run once on the general path and shipped as
  // states of themselves, which the shards read back with their types (the String "1" of id 5 stays a String; as
  // JSON rows the shards would read the Int64 1). Selected after the JOIN, a Dynamic column is a sort key the fast
  // path's shards would break ORDER BY ties with (44): its tie-breaker leaves a shipped column of such a type out, as a JSON path.
  [
    'SELECT l.id, r.j FROM cht.json_dist AS l GLOBAL JOIN (SELECT id, j FROM cht.json_dist WHERE id > 2) AS r USING id ORDER BY id',
    { ...CARRIED, fast: 'UNSUPPORTED' },
  ],
  [
    'SELECT l.id, dynamicType(r.j.a) AS t, toString(r.j.a) AS s FROM cht.json_dist AS l GLOBAL JOIN (SELECT id, j FROM cht.json_dist) AS r USING id ORDER BY l.id',
    ALL_EQUAL,
  ],
  [
    'SELECT dynamicType(r.a) AS t, count() AS c FROM cht.json_dist AS l GLOBAL JOIN (SELECT id, j.a AS a FROM cht.json_dist) AS r USING id GROUP BY t ORDER BY t',
    ALL_EQUAL,
  ],
  ['SELECT id, r.a, dynamicType(r.a) AS t FROM cht.json_dist AS l GLOBAL JOIN (SELECT id, j.a AS a FROM cht.json_dist) AS r USING id ORDER BY id', ALL_EQUAL],
  ['SELECT id, r.a FROM cht.json_dist GLOBAL JOIN (SELECT id, j.a AS a FROM cht.json_dist) AS r USING id ORDER BY id', ALL_EQUAL],
  ['SELECT id, a FROM cht.json_dist GLOBAL JOIN (SELECT id, j.a AS a FROM cht.json_dist) AS r USING id ORDER BY id DESC LIMIT 4', ALL_EQUAL],
  // An item whose value keeps the Dynamic or Variant type (a call over such a column, a CAST to such a type) is no
  // tie-breaker of the fast path's shards either.
  ['SELECT id, ifNull(r.a, r.a) AS b FROM cht.json_dist GLOBAL JOIN (SELECT id, j.a AS a FROM cht.json_dist) AS r USING id ORDER BY id', ALL_EQUAL],
  [
    'SELECT l.id, materialize(r.a) AS b, r.a FROM cht.json_dist AS l GLOBAL JOIN (SELECT id, j.a AS a FROM cht.json_dist) AS r USING id ORDER BY l.id DESC LIMIT 4',
    ALL_EQUAL,
  ],
  ['SELECT id, ifNull(j.a, j.a) AS b, [j.b.c] AS c FROM cht.json_dist ORDER BY id', ALL_EQUAL],
  [`SELECT id, ${VARIANT} AS v, j.a::Dynamic AS d FROM cht.json_dist ORDER BY id`, ALL_EQUAL],
  [
    'SELECT id, r.a FROM cht.json_dist GLOBAL JOIN (SELECT id, j.a AS a FROM cht.json_dist) AS r USING id ORDER BY r.a',
    { auto: 'QUERY_ERROR 44', fast: 'QUERY_ERROR 44', general: 'QUERY_ERROR 44', ch: 'QUERY_ERROR 44' },
  ],
  [
    `SELECT l.id, variantType(r.v) AS t FROM cht.json_dist AS l GLOBAL JOIN (SELECT id, ${VARIANT} AS v FROM cht.json_dist) AS r USING id ORDER BY l.id`,
    ALL_EQUAL,
  ],
  // A Variant's String '2' is not its UInt32 2: the set matches the ids whose variants agree, as one node's does.
  [
    `SELECT id FROM cht.json_dist WHERE (id, toUInt32(id)::Variant(String, UInt32)) GLOBAL IN (SELECT id, ${VARIANT} FROM cht.json_dist) ORDER BY id`,
    ALL_EQUAL,
  ],
  [`SELECT id FROM cht.json_dist WHERE (id, ${VARIANT}) GLOBAL NOT IN (SELECT id, ${VARIANT} FROM cht.json_dist WHERE id > 3) ORDER BY id`, ALL_EQUAL],
  [
    'SELECT id FROM cht.json_dist WHERE dynamicType(j.a) = dynamicType((SELECT j.a FROM cht.json_dist WHERE id = 5)) AND j.a.:String = (SELECT j.a.:String FROM cht.json_dist WHERE id = 5) ORDER BY id',
    ALL_EQUAL,
  ],
  // ClickHouse refuses a set of JSON or Dynamic values itself (43), on the shards as on one node.
  [
    'SELECT id FROM cht.json_dist WHERE j GLOBAL IN (SELECT j FROM cht.json_dist WHERE id = 2) ORDER BY id',
    { auto: 'QUERY_ERROR 43', fast: 'QUERY_ERROR 43', general: 'QUERY_ERROR 43', ch: 'QUERY_ERROR 43' },
  ],
  // toJSONString runs on the shards: with the client's output_format_json_quote_64bit_integers there (the interface's URL).
  ['SELECT id, toJSONString(j) AS s FROM cht.json_dist ORDER BY id', { ch: 'equal' }],
  // ClickHouse refuses a Dynamic GROUP BY key itself (44); so does every path.
  ['SELECT j.a, count() FROM cht.json_dist GROUP BY j.a', { auto: 'QUERY_ERROR 44', fast: 'QUERY_ERROR 44', general: 'QUERY_ERROR 44', ch: 'QUERY_ERROR 44' }],
];

async function viaApi(sql: string, path: Path): Promise<string> {
  const settings = path === 'auto' ? {} : { ch_scatter_path: path };
  const res = await fetch(`${o.stack.url}/query`, { method: 'POST', body: JSON.stringify({ sql, settings, requireComplete: true }) });
  const body = (await res.json()) as { meta: never; data: never; error?: { code: string; message: string }; clickhouse?: { code: number } };
  if (res.status === 200) return compareAnswers({ meta: body.meta, rows: body.data }, await o.reference(sql), { ordered: /ORDER BY/.test(sql) }) ?? 'equal';
  expect(res.status, body.error?.message).toBe(400);
  if (body.error?.code === 'UNSUPPORTED') expect(body.error.message).toMatch(/a value of type (JSON|Dynamic) cannot (travel exactly|be merged)/);
  return body.clickhouse ? `${body.error?.code} ${body.clickhouse.code}` : body.error!.code;
}

async function viaInterface(sql: string): Promise<string> {
  const res = await fetch(`${o.stack.url}/?output_format_json_quote_64bit_integers=1&default_format=JSON`, { method: 'POST', body: sql });
  const text = await res.text();
  if (res.status === 200) {
    const body = JSON.parse(text) as { meta: never; data: never };
    return compareAnswers({ meta: body.meta, rows: body.data }, await o.reference(sql), { ordered: /ORDER BY/.test(sql) }) ?? 'equal';
  }
  // ClickHouse's code and HTTP status: 48 NOT_IMPLEMENTED is 501, 44 ILLEGAL_COLUMN 400, 43 ILLEGAL_TYPE_OF_ARGUMENT 500.
  const code = Number(/^Code: (\d+)\./.exec(text)?.[1]);
  if (code === 48) {
    expect(res.status).toBe(501);
    expect(text).toMatch(/a value of type (JSON|Dynamic) cannot travel exactly/);
    return 'UNSUPPORTED';
  }
  expect(res.status).toBe(code === 43 ? 500 : 400);
  return `QUERY_ERROR ${code}`;
}

describe('a JSON column through the stack, as one node answers it', () => {
  for (const [sql, fates] of SHAPES) {
    for (const [where, fate] of Object.entries(fates))
      it(`${where}: ${sql}`, async () => {
        expect(where === 'ch' ? await viaInterface(sql) : await viaApi(sql, where as Path)).toBe(fate);
      });
  }
});

describe("the client's JSON format settings where a function computes with them", () => {
  it('toJSONString on the shards quotes 64-bit integers as the URL asks, and not when it does not', async () => {
    const sql = 'SELECT id, toJSONString(j) AS s FROM cht.json_dist WHERE id < 2 ORDER BY id';
    for (const [quote, k1] of [
      ['1', '"k1":"2"'],
      ['0', '"k1":2'],
    ] as const) {
      const res = await fetch(`${o.stack.url}/?output_format_json_quote_64bit_integers=${quote}&default_format=JSONEachRow`, { method: 'POST', body: sql });
      const text = await res.text();
      expect(res.status, text).toBe(200);
      const rows = text
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as { s: string });
      expect(rows.length).toBe(2);
      for (const r of rows) expect(r.s).toContain(k1);
    }
  });
});

describe('a GLOBAL subquery of JSON objects', () => {
  // The fast path meets the objects as the rows arrive and names the answer's columns then: the general path carries
  // them as states from its first run, one request per shard among the subquery's, never a JSON run first to learn the
  // types and another to carry them. The fast path's refused requests are on the timeline as abandoned.
  it.each([
    ['rows', 'SELECT l.id, r.j FROM cht.json_dist AS l GLOBAL JOIN (SELECT id, j FROM cht.json_dist WHERE id > 2) AS r USING id ORDER BY id'],
    [
      'an aggregate',
      'SELECT l.id, r.m FROM cht.json_dist AS l GLOBAL JOIN (SELECT id % 3 AS g, argMax(j, id) AS m FROM cht.json_dist GROUP BY g) AS r ON l.id = r.g ORDER BY l.id',
    ],
  ])('of %s runs once on the general path after the fast path refuses it', async (_what, sql) => {
    const res = await fetch(`${o.stack.url}/query`, {
      method: 'POST',
      body: JSON.stringify({ sql, settings: { ch_scatter_path: 'general' }, requireComplete: true }),
    });
    const body = (await res.json()) as { meta: never; data: never; statistics: { subqueries?: { shard: number }[]; abandoned?: { shard: number }[] } };
    expect(res.status).toBe(200);
    expect(compareAnswers({ meta: body.meta, rows: body.data }, await o.reference(sql), { ordered: true })).toBeUndefined();
    const perShard = (stats: { shard: number }[] | undefined) => {
      const asked = new Map<number, number>();
      for (const s of stats ?? []) asked.set(s.shard, (asked.get(s.shard) ?? 0) + 1);
      return [...asked].sort((a, b) => a[0] - b[0]);
    };
    const once = [0, 1, 2, 3].map((shard) => [shard, 1]);
    expect(perShard(body.statistics.subqueries)).toEqual(once);
    expect(perShard(body.statistics.abandoned)).toEqual(once);
  });
});

describe('the price of a fast run the general path took over', () => {
  type Stat = { shard: number; rowsRead: number };
  type Stats = { rowsRead: number; shards: Stat[]; subqueries?: Stat[]; abandoned?: Stat[] };
  const ask = async (sql: string) => {
    const res = await fetch(`${o.stack.url}/query`, { method: 'POST', body: JSON.stringify({ sql, requireComplete: true }) });
    const body = (await res.json()) as { path: string; statistics: Stats };
    expect(res.status).toBe(200);
    return body;
  };
  const sum = (xs: Stat[] | undefined) => (xs ?? []).reduce((a, s) => a + s.rowsRead, 0);
  it("counts the rows the refused fast run read, each shard's request on the timeline as abandoned", async () => {
    // The fast path refuses a JSON column's objects as they arrive, after every shard has read its rows.
    const body = await ask('SELECT id, j FROM cht.json_dist ORDER BY id');
    expect(body.path).toBe('general');
    const st = body.statistics;
    // Every shard was asked; those still reading when the merge refused were cancelled, and report what they read, if anything.
    expect(st.abandoned?.map((s) => s.shard).sort()).toEqual([0, 1, 2, 3]);
    expect(sum(st.abandoned)).toBeGreaterThan(0);
    expect(st.rowsRead).toBe(sum(st.shards) + sum(st.subqueries) + sum(st.abandoned));
  });
  it('has none where the fast path refused the query before asking a shard', async () => {
    const body = await ask('SELECT id, row_number() OVER (ORDER BY id) AS n FROM cht.json_dist ORDER BY id');
    expect(body.path).toBe('general');
    expect(body.statistics.abandoned).toBeUndefined();
  });
});
