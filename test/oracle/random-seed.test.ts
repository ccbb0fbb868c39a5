// generateRandom() without a seed inside a distributed query: the coordinator draws one seed, every shard
// draws the same rows from it, and the answer reports it. The local stack (four chdb shard processes)
// against one chdb node holding every row, given the reported seed.
import { describe, expect, it } from 'vitest';
import { compareAnswers } from './compare.js';
import { useChtStack } from './clickhouse-tests/stack.js';
import { answerOf } from './harness.js';

const o = useChtStack();

/** The query with each reported seed written where it was drawn, in order. */
function withSeeds(sql: string, seeds: string[]): string {
  let i = 0;
  return sql.replace(/generateRandom\('([^']*)'(, NULL)?/g, (_m, structure: string) => `generateRandom('${structure}', ${seeds[i++]}`);
}

describe('generateRandom() without a seed', () => {
  const cases = [
    "SELECT count() FROM cht.numbers_dist WHERE number IN (SELECT toUInt64(a) FROM generateRandom('a UInt8') LIMIT 100)",
    "SELECT n.a, count() AS c FROM cht.numbers_dist AS t JOIN (SELECT a FROM generateRandom('a UInt16', NULL, 10, 10) LIMIT 300) AS n ON t.number = n.a GROUP BY n.a ORDER BY n.a",
    "SELECT count() FROM cht.numbers10_dist WHERE number IN (SELECT a % 10 FROM generateRandom('a UInt8') LIMIT 3) OR number IN (SELECT b % 10 FROM generateRandom('b UInt8') LIMIT 3)",
  ];
  for (const sql of cases)
    it(`every shard draws the rows of the reported seed: ${sql}`, async () => {
      const got = await o.post('/query', { sql, requireComplete: true });
      expect(got.status, JSON.stringify(got.body).slice(0, 300)).toBe(200);
      const seeds: string[] = got.body.randomSeeds;
      expect(seeds).toHaveLength((sql.match(/generateRandom/g) ?? []).length);
      for (const s of seeds) expect(s).toMatch(/^\d+$/);
      expect(compareAnswers(answerOf(got.body), await o.reference(withSeeds(sql, seeds)), { ordered: /ORDER BY/.test(sql) })).toBeUndefined();
      // The reported seed repeats the answer through the stack too.
      const again = await o.post('/query', { sql: withSeeds(sql, seeds) });
      expect(again.body.randomSeeds).toBeUndefined();
      expect(again.body.data).toEqual(got.body.data);
    });
  it('each request draws its own seed, and /explain says which', async () => {
    const sql = cases[0]!;
    const [a, b] = await Promise.all([o.post('/query', { sql }), o.post('/query', { sql })]);
    expect(a.body.randomSeeds[0]).not.toBe(b.body.randomSeeds[0]);
    const e = await o.post('/explain', { sql });
    expect(e.status).toBe(200);
    expect(e.body.notes[0]).toMatch(/^generateRandom\(\) without a seed: every engine draws the rows of seed \d+$/);
  });
  it("ClickHouse's HTTP interface answers it too", async () => {
    const res = await fetch(`${o.stack.url}/?default_format=TSV`, { method: 'POST', body: cases[0]! });
    const text = await res.text();
    expect(res.status, text).toBe(200);
    expect(Number(text.trim())).toBeGreaterThan(0);
  });
});
