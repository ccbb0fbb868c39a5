// WITH RECURSIVE and ORDER BY ALL on the local stack (four chdb shard processes), against one chdb node
// holding every row: the codes of what ClickHouse refuses, a fast-check property over recursive CTEs
// that start from the shards' rows, /explain, and ClickHouse's HTTP interface.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compareAnswers } from './compare.js';
import { CHT_CORPUS } from './clickhouse-tests/corpus.js';
import { useChtStack } from './clickhouse-tests/stack.js';
import { queryApiRunner } from './harness.js';

const o = useChtStack();

const codeOf = (e: unknown) => Number(/Code: (\d+)/.exec(String(e))?.[1]);

describe("what ClickHouse refuses: ClickHouse's code, from the stack", () => {
  const sources = new Set(['02943_order_by_all.sql', '03033_recursive_cte_basic.sql', '03034_recursive_cte_tree.sql']);
  const cases = CHT_CORPUS.filter((c) => sources.has(c.source));
  it('holds the queries', () => expect(cases.length).toBeGreaterThan(20));
  it('each refusal carries the code the single node gives (183 for a column named all, 306 past the recursion depth)', async () => {
    const seen: number[] = [];
    for (const c of cases) {
      const want = await o.reference(c.sql).then(
        () => undefined,
        (e: unknown) => codeOf(e),
      );
      if (want === undefined) continue;
      const got = await o.post('/query', { sql: c.sql });
      expect(got.status, c.id).toBe(400);
      expect(got.body.clickhouse?.code, `${c.id}: ${JSON.stringify(got.body).slice(0, 300)}`).toBe(want);
      seen.push(want);
    }
    expect(new Set(seen)).toEqual(new Set([183, 306]));
  }, 120_000);
  it('a depth over the cap of 1000 is refused before any engine runs (452, as a profile constraint)', async () => {
    const sql =
      'WITH RECURSIVE r AS (SELECT 1 AS n UNION ALL SELECT n + 1 FROM r WHERE n < 3) SELECT n FROM cht.numbers10_dist, r SETTINGS max_recursive_cte_evaluation_depth = 5000';
    const got = await o.post('/query', { sql });
    expect(got.status).toBe(400);
    expect(got.body.clickhouse).toEqual({ code: 452, name: 'SETTING_CONSTRAINT_VIOLATION' });
    expect(got.body.error.position).toEqual({ line: 1, column: expect.any(Number) });
  });
});

describe('recursive CTEs over the shards = one node', () => {
  it('a walk that starts from rows of the shards and steps through a table read whole (fast-check)', async () => {
    const run = queryApiRunner(o.stack.url, { timeoutMs: 20_000 });
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: 20 }),
        fc.integer({ min: 1, max: 7 }),
        fc.integer({ min: 1, max: 60 }),
        fc.boolean(),
        async (start, step, stop, join) => {
          const next = join
            ? `SELECT t.number, r.depth + 1 FROM cht.numbers_dist AS t JOIN r ON t.number = r.n + ${step} WHERE r.n < ${stop}`
            : `SELECT n + ${step}, depth + 1 FROM r WHERE n < ${stop}`;
          const sql =
            `WITH RECURSIVE r AS (SELECT number AS n, toUInt64(0) AS depth FROM cht.numbers_dist WHERE number % 97 = ${start} UNION ALL ${next}) ` +
            'SELECT n, max(depth) AS d, count() AS c FROM r GROUP BY n ORDER BY n';
          expect(compareAnswers(await run(sql), await o.reference(sql), { ordered: true }), sql).toBeUndefined();
        },
      ),
      { numRuns: 10 },
    );
  }, 120_000);
  it('written inside the subquery that reads it, on either path', async () => {
    const sql =
      'SELECT count() AS c FROM cht.numbers_dist WHERE number IN (WITH RECURSIVE r AS (SELECT 1 AS n UNION ALL SELECT n * 3 FROM r WHERE n < 500) SELECT n FROM r)';
    for (const path of ['fast', 'general']) {
      const got = await queryApiRunner(o.stack.url, { settings: { ch_scatter_path: path } })(sql);
      expect(compareAnswers(got, await o.reference(sql), { ordered: true }), path).toBeUndefined();
    }
  });
  it('/explain says the final stage evaluates it', async () => {
    const sql = 'WITH RECURSIVE r AS (SELECT max(number) AS n FROM cht.numbers10_dist UNION ALL SELECT n - 1 FROM r WHERE n > 5) SELECT n FROM r';
    const got = await o.post('/explain', { sql, settings: { ch_scatter_path: 'general' } });
    expect(got.status, JSON.stringify(got.body).slice(0, 300)).toBe(200);
    expect(JSON.stringify(got.body)).toContain('WITH RECURSIVE r: evaluated by the final stage');
  });
});

describe("ClickHouse's HTTP interface", () => {
  async function ch(sql: string): Promise<{ status: number; text: string }> {
    const res = await fetch(`${o.stack.url}/?default_format=JSONCompact`, { method: 'POST', body: sql });
    return { status: res.status, text: await res.text() };
  }
  it('answers WITH RECURSIVE over a distributed table, and one that reads none on one engine', async () => {
    const tree =
      'WITH RECURSIVE s AS (SELECT id, data FROM cht.tree_dist WHERE id = 0 UNION ALL SELECT t.id, t.data FROM cht.tree_dist AS t, s WHERE t.link = s.id) SELECT data FROM s ORDER BY data';
    const a = await ch(tree);
    expect(a.status, a.text).toBe(200);
    expect(JSON.parse(a.text).data).toEqual([['Child_1'], ['Child_1_1'], ['Child_2'], ['ROOT']]);
    const b = await ch('WITH RECURSIVE r AS (SELECT 1 AS n UNION ALL SELECT n + 1 FROM r WHERE n < 4) SELECT sum(n) FROM r');
    expect(b.status, b.text).toBe(200);
    expect(JSON.parse(b.text).data.map((r: unknown[]) => Number(r[0]))).toEqual([10]);
  });
  it("answers ORDER BY ALL, and a column named all is 183 (HTTP 500, as ClickHouse's exceptionCodeToHTTPStatus has it)", async () => {
    const a = await ch('SELECT b, a FROM cht.order_by_all_dist ORDER BY ALL DESC NULLS FIRST');
    expect(a.status, a.text).toBe(200);
    expect(JSON.parse(a.text).data).toEqual([
      [null, 'C'],
      [3, 'B'],
      [2, 'A'],
      [1, 'D'],
    ]);
    const b = await ch('SELECT a, b AS all FROM cht.order_by_all_dist ORDER BY ALL');
    expect(b.status).toBe(500);
    expect(b.text).toMatch(/^Code: 183\. DB::Exception: Cannot use ORDER BY ALL/);
  });
});
