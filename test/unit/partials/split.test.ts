// The split itself: what each shard is asked for (partials only, never raw rows, for an aggregate
// query), where LIMIT is pushed down (only where exact or bounded), and what is refused.
import { describe, expect, test } from 'vitest';
import { ScatterError } from '../../../shared/core/errors.js';
import { splitQuery } from '../../../shared/core/partials/index.js';
import type { SplitContext } from '../../../shared/core/partials/types.js';
import { parseSelect, printSelect } from '../../../shared/core/sql/index.js';
import type { SelectQuery } from '../../../shared/core/sql/ast.js';

const CTX: SplitContext = { shardCount: 4, shardSizeFactor: 1.5, shardSizeAdd: 10, maxRowsToTransfer: 1000, shardingKeyColumn: 'uid' };
const shardSql = (sql: string, ctx: Partial<SplitContext> = {}) => printSelect(splitQuery(parseSelect(sql) as SelectQuery, { ...CTX, ...ctx }).shardQuery);
const err = (sql: string): ScatterError => {
  try {
    splitQuery(parseSelect(sql) as SelectQuery, CTX);
  } catch (e) {
    return e as ScatterError;
  }
  throw new Error('expected an error');
};

describe('aggregate queries: keys and partial states only', () => {
  test('avg becomes sum and count; keys and partials get generated names', () => {
    const sql = shardSql('SELECT region, avg(v) AS a, count() FROM t WHERE v > 0 GROUP BY region ORDER BY a');
    expect(sql).toMatch(/^SELECT region AS `?__k0`?, sum\(v\) AS `?__a0`?, count\(v\) AS `?__a1`?, count\(\) AS `?__a2`? FROM t WHERE v > 0 GROUP BY region$/);
  });
  test('a function of group keys the coordinator does not evaluate is computed by the shard', () => {
    expect(shardSql('SELECT reverse(region) AS r, count() FROM t GROUP BY region')).toMatch(/reverse\(region\) AS `?__e0`?/);
  });
  test('partial expressions shared by different aggregates are computed once (sum beside avg, count() beside min and max)', () => {
    const sql = shardSql('SELECT count() AS c, sum(v) AS s, avg(v) AS a, min(v) AS lo, max(v) AS hi, count(v) AS n FROM t');
    expect(sql).toMatch(/^SELECT count\(\) AS `?__a0`?, sum\(v\) AS `?__a1`?, count\(v\) AS `?__a2`?, min\(v\) AS `?__a3`?, max\(v\) AS `?__a4`? FROM t$/);
  });
  test('the same aggregate written twice is computed once', () => {
    const sql = shardSql('SELECT count() AS c, count() * 2 FROM t HAVING count() > 1');
    expect(sql.match(/count\(\)/g)!.length).toBe(1);
  });
});

describe('LIMIT push-down', () => {
  test('ORDER BY all the group keys: exact, each shard returns offset + limit groups', () => {
    expect(shardSql('SELECT region, count() FROM t GROUP BY region ORDER BY region LIMIT 5, 3')).toMatch(/ORDER BY region LIMIT 8$/);
  });
  test('group keys include the sharding key: the shard runs HAVING, ORDER BY and LIMIT', () => {
    // The group keys follow as tie-breakers, so ties at the shard's LIMIT never depend on its read order.
    expect(shardSql('SELECT uid, sum(v) AS s FROM t GROUP BY uid HAVING s > 1 ORDER BY s DESC LIMIT 3')).toMatch(
      /HAVING sum\(v\) > 1 ORDER BY sum\(v\) DESC, uid LIMIT 3$/,
    );
    expect(shardSql('SELECT uid, sensor, count() AS c FROM t GROUP BY uid, sensor ORDER BY sensor, c LIMIT 3')).toMatch(
      /ORDER BY sensor, count\(\), uid LIMIT 3$/,
    );
  });
  test('ORDER BY count() DESC: shard_size = n * 1.5 + 10 groups', () => {
    expect(shardSql('SELECT sensor, count() AS c FROM t GROUP BY sensor ORDER BY c DESC LIMIT 10')).toMatch(/ORDER BY count\(\) DESC, sensor LIMIT 25$/);
  });
  test('no push-down where it would be inexact', () => {
    for (const q of [
      'SELECT sensor, max(v) AS m FROM t GROUP BY sensor ORDER BY m DESC LIMIT 5',
      'SELECT sensor, count() AS c FROM t GROUP BY sensor HAVING c > 1 ORDER BY sensor LIMIT 5',
      'SELECT sensor, region, count() FROM t GROUP BY sensor, region ORDER BY sensor LIMIT 5',
      'SELECT sensor, count() FROM t GROUP BY sensor LIMIT 5',
    ])
      expect(shardSql(q)).not.toMatch(/LIMIT/);
  });
});

describe('row queries', () => {
  test('top k by the sort key plus the tie-breaker; selected sort and tie expressions are not sent twice', () => {
    const sql = shardSql('SELECT uid, v FROM t ORDER BY v DESC LIMIT 10 OFFSET 5');
    expect(sql).toMatch(/^SELECT uid, v FROM t ORDER BY v DESC, uid, v LIMIT 16$/);
  });
  test('unselected sort keys travel as hidden columns, each distinct expression once', () => {
    const sql = shardSql('SELECT uid FROM t ORDER BY v * 2, uid LIMIT 3 BY v * 2 LIMIT 10', { tieBreaker: ['id'] });
    expect(sql).toMatch(/^SELECT uid, v \* 2 AS `?__o0`?, id AS `?__t0`? FROM t ORDER BY v \* 2, uid, id LIMIT 3 BY v \* 2 LIMIT 10$/);
    const m = splitQuery(parseSelect('SELECT uid FROM t ORDER BY v * 2, uid LIMIT 3 BY v * 2 LIMIT 10') as SelectQuery, {
      ...CTX,
      tieBreaker: ['id'],
    }).createMerger();
    const meta = [
      { name: 'uid', type: 'UInt32' },
      { name: '__o0', type: 'Int64' },
      { name: '__t0', type: 'UInt32' },
    ];
    m.add(
      1,
      [
        { uid: 5, __o0: '2', __t0: 50 },
        { uid: 6, __o0: '4', __t0: 60 },
      ],
      meta,
    );
    m.add(
      0,
      [
        { uid: 1, __o0: '2', __t0: 10 },
        { uid: 2, __o0: '4', __t0: 20 },
      ],
      meta,
    );
    expect(m.finalize()).toEqual({ meta: [{ name: 'uid', type: 'UInt32' }], data: [{ uid: 1 }, { uid: 5 }, { uid: 2 }, { uid: 6 }] });
  });
  test('a subcolumn that may be Dynamic (a JSON path) is no tie-breaker, and the query pages no cursor', () => {
    expect(shardSql('SELECT id, j.a, t.j.b, j.c.:Int64 AS c, t.v FROM db.t AS t ORDER BY id LIMIT 3')).toMatch(/ORDER BY id, id, j\.c\.:Int64, t\.v LIMIT 3$/);
    expect(shardSql('SELECT id, t.v FROM db.t AS t ORDER BY id LIMIT 3')).toMatch(/ORDER BY id, id, t\.v LIMIT 4$/);
    expect(shardSql('SELECT id, db.t.v FROM db.t AS b ORDER BY id LIMIT 3')).toMatch(/ORDER BY id, id, db\.t\.v LIMIT 4$/);
  });
  test("a shipped JOIN table's column the shards cannot sort by (a Dynamic value) is no tie-breaker, qualified or not", () => {
    const unsortable = new Set(['a', 'r.a']);
    const sql = 'SELECT id, r.a, a, r.b FROM t GLOBAL JOIN _data_1 AS r USING id ORDER BY id LIMIT 3';
    expect(shardSql(sql, { unsortable })).toMatch(/ORDER BY id, id, r\.b LIMIT 3$/);
    expect(shardSql(sql)).toMatch(/ORDER BY id, id, r\.a, a, r\.b LIMIT 4$/);
    expect(shardSql('SELECT id, r.a.:Int64 AS x FROM t JOIN _data_1 AS r USING id ORDER BY id LIMIT 3', { unsortable })).toMatch(
      /ORDER BY id, id, r\.a\.:Int64 LIMIT 4$/,
    );
  });
  test('an item whose type the plan cannot prove sortable (a call or cast keeping a Dynamic or Variant type) is no tie-breaker', () => {
    const unsortable = new Set(['a', 'r.a']);
    const join = 'FROM t GLOBAL JOIN _data_1 AS r USING id ORDER BY id LIMIT 3';
    expect(shardSql(`SELECT id, ifNull(r.a, r.a) AS b, [a] AS c, tuple(r.a) AS d, r.b ${join}`, { unsortable })).toMatch(/ORDER BY id, id, r\.b LIMIT 3$/);
    expect(shardSql(`SELECT id, materialize(j.a) AS b, j.a::Dynamic AS d, CAST(v, 'Variant(String, UInt32)') AS w, v ${join}`)).toMatch(
      /ORDER BY id, id, v LIMIT 3$/,
    );
    expect(shardSql(`SELECT id, JSONExtract(s, 'Dynamic') AS e, j.a.:Dynamic AS p ${join}`)).toMatch(/ORDER BY id, id LIMIT 3$/);
    // A call or cast of one sortable type proves it: such items still break ties, and the query pages.
    expect(shardSql(`SELECT id, dynamicType(r.a) AS t, toString(j.a) AS s, j.a::String AS c, j.a.:Int64 + 1 AS n ${join}`, { unsortable })).toMatch(
      /ORDER BY id, id, dynamicType\(r\.a\), toString\(j\.a\), j\.a::String, j\.a\.:Int64 \+ 1 LIMIT 4$/,
    );
  });
  test('a configured unique key is the tie-breaker', () => {
    expect(shardSql('SELECT v FROM t ORDER BY v LIMIT 3', { tieBreaker: ['id'] })).toMatch(/ORDER BY v, id LIMIT 4$/);
  });
  test('a cursor becomes an after-predicate and drops the offset', async () => {
    const q = parseSelect('SELECT uid, v FROM t ORDER BY v DESC LIMIT 2') as SelectQuery;
    const m = splitQuery(q, CTX).createMerger();
    m.add(
      0,
      [
        { uid: 1, v: 9 },
        { uid: 2, v: 8 },
        { uid: 3, v: 7 },
      ],
      [
        { name: 'uid', type: 'UInt32' },
        { name: 'v', type: 'Int32' },
      ],
    );
    const page = m.finalize();
    expect(page.data).toEqual([
      { uid: 1, v: 9 },
      { uid: 2, v: 8 },
    ]);
    expect(page.cursor).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{43}$/); // base64url body . HMAC-SHA256 tag
    const next = printSelect(splitQuery(q, { ...CTX, cursor: page.cursor! }).shardQuery);
    expect(next).toContain('WHERE or(or(less(v, 8), isNull(v)), and(equals(v, 8), or(greater(uid, 2), isNull(uid)))');
    expect(next).toContain('and(equals(v, 8), equals(uid, 2), equals(v, 8)))');
    // the cursor's row itself comes back (identical rows may straddle pages) and is skipped: 1 + 2 + 1
    expect(next).toMatch(/LIMIT 4$/);
  });

  test('identical rows straddling a page boundary are neither lost nor repeated', () => {
    const q = parseSelect('SELECT v FROM t ORDER BY v LIMIT 2') as SelectQuery;
    const meta = [{ name: 'v', type: 'Int32' }];
    const all = [1, 5, 5, 5, 5, 7];
    const rowsOf = (vs: number[]) => vs.map((v) => ({ v }));
    const got: number[] = [];
    let cursor: string | undefined;
    for (let p = 0; p < 5; p++) {
      const split = splitQuery(q, { ...CTX, ...(cursor ? { cursor } : {}) });
      const sql = printSelect(split.shardQuery);
      const limit = Number(/LIMIT (\d+)$/.exec(sql)![1]);
      // What a shard holding all rows returns for this page: rows >= the cursor row (inclusive), first `limit`.
      const from = cursor ? all.filter((v) => v >= got[got.length - 1]!) : all;
      const m = split.createMerger();
      m.add(0, rowsOf(from.slice(0, limit)), meta);
      const page = m.finalize();
      got.push(...page.data.map((r) => r.v as number));
      cursor = page.cursor;
      if (!cursor) break;
    }
    expect(got).toEqual(all);
  });
  test('a damaged cursor is BAD_REQUEST', () => {
    expect(() => splitQuery(parseSelect('SELECT uid FROM t ORDER BY uid LIMIT 2') as SelectQuery, { ...CTX, cursor: 'garbage' })).toThrow(ScatterError);
  });
});

describe('refused with UNSUPPORTED and a position', () => {
  test.each([
    ['SELECT stddevPop(v) FROM t', /stddevPop/],
    ['SELECT groupArray(v) FROM t', /groupArray/],
    ['SELECT sum(v) FROM t GROUP BY r WITH TOTALS', /WITH TOTALS/],
    ['SELECT sum(v) FROM t GROUP BY r WITH CUBE', /CUBE/],
    ['SELECT reverse(toString(sum(v))) FROM t', /reverse/],
    ['SELECT sum(count()) FROM t', /inside another aggregate/],
    ['SELECT v FROM t WHERE sum(v) > 1', /WHERE/],
    ['SELECT * FROM t GROUP BY v', /SELECT \*/],
  ])('%s', (sql, msg) => {
    const e = err(sql);
    expect(e).toBeInstanceOf(ScatterError);
    expect(e.code).toBe('UNSUPPORTED');
    expect(e.message).toMatch(msg);
  });
  test('the position points at the function', () => {
    expect(err('SELECT a,\n  stddevPop(v) FROM t').position).toEqual({ line: 2, column: 3 });
  });
});

test('aggregate names match case-insensitively where ClickHouse does, and keep the written name', () => {
  const split = splitQuery(parseSelect('SELECT COUNT(*), Sum(v) FROM t') as SelectQuery, CTX);
  expect(printSelect(split.shardQuery)).toMatch(/count\(\) AS `?__a0`?, sum\(v\) AS `?__a1`?/i);
  const m = split.createMerger();
  m.add(
    0,
    [{ __a0: '2', __a1: '5' }],
    [
      { name: '__a0', type: 'UInt64' },
      { name: '__a1', type: 'Int64' },
    ],
  );
  expect(m.finalize().data).toEqual([{ 'COUNT()': '2', 'Sum(v)': '5' }]);
});

test('a column neither grouped nor aggregated is a BAD_REQUEST naming it (as ClickHouse refuses it)', () => {
  const e = err('SELECT region, v, count() FROM t GROUP BY region');
  expect(e.code).toBe('BAD_REQUEST');
  expect(e.message).toMatch(/column v/);
  expect(e.position).toEqual({ line: 1, column: 16 });
  // functions of keys, lambdas over their own parameters and literals are fine
  expect(() => splitQuery(parseSelect("SELECT upper(region), arrayMap(x -> x + 1, [1]), 'a' FROM t GROUP BY region") as SelectQuery, CTX)).not.toThrow();
});

test('more groups than maxRowsToTransfer is TRANSFER_LIMIT; 0 means no limit (as in ClickHouse)', () => {
  const q = parseSelect('SELECT g, count() FROM t GROUP BY g') as SelectQuery;
  const rows = Array.from({ length: 6 }, (_, i) => ({ __k0: `g${i}`, __a0: '1' }));
  const meta = [
    { name: '__k0', type: 'String' },
    { name: '__a0', type: 'UInt64' },
  ];
  const limited = splitQuery(q, { ...CTX, maxRowsToTransfer: 5 }).createMerger();
  expect(() => limited.add(0, rows, meta)).toThrow(expect.objectContaining({ code: 'TRANSFER_LIMIT' }));
  const unlimited = splitQuery(q, { ...CTX, maxRowsToTransfer: 0 }).createMerger();
  unlimited.add(0, rows, meta);
  expect(unlimited.finalize().data).toHaveLength(6);
});
