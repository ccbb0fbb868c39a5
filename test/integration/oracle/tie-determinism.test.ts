// Same inputs, same answer: `GROUP BY url ORDER BY count() DESC LIMIT n` with many urls tied at
// the cut-off, under the shard_size approximation (each shard sends only its top groups) and with
// LIMIT pushed down whole (group keys include the sharding key). Whatever order the shards
// answer in, and however often the query runs, the rows are the same: ties break on the group keys,
// on the shard (its ORDER BY carries the keys after the user's) and on the coordinator alike.
// One chdb process with one table per shard.
import fc from 'fast-check';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { ClickHouseAccess, QueryResult } from '../../../shared/core/clickhouse/port.js';
import { createEmbeddedAccess } from '../../../shared/adapters/clickhouse/embedded.js';
import { splitQuery, type SplitContext } from '../../../shared/core/partials/index.js';
import { parseSelect, printSelect } from '../../../shared/core/sql/index.js';
import type { SelectQuery } from '../../../shared/core/sql/ast.js';

const SHARDS = 4;
let ch: ClickHouseAccess;
let dir: string;

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tie-determinism-'));
  ch = await createEmbeddedAccess({ path: dir });
  for (let s = 0; s < SHARDS; s++) {
    await ch.exec(`CREATE TABLE t_${s} (url String, uid UInt32) ENGINE = MergeTree ORDER BY uid`);
    // 40 urls per shard, overlapping between shards; counts 1..4 so dozens of urls tie at every count.
    // Inserted in a shard-specific order so each shard reads its ties in its own order.
    await ch.exec(
      `INSERT INTO t_${s} SELECT concat('/p', toString((number * 7 + ${s * 11}) % 60)) AS url, toUInt32(number * 13 % 1000 + ${s}) AS uid ` +
        `FROM numbers(100) ARRAY JOIN range(toUInt64(1 + (number + ${s}) % 4)) AS rep ORDER BY cityHash64(number, ${s})`,
    );
  }
}, 60_000);
afterAll(async () => {
  await ch?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const onShard = (q: SelectQuery, s: number): string => printSelect(q).replace(/\bt\b/g, `t_${s}`);

async function shardAnswers(sql: string, ctx: Partial<SplitContext>) {
  const split = splitQuery(parseSelect(sql) as SelectQuery, { shardCount: SHARDS, shardSizeFactor: 1, shardSizeAdd: 0, maxRowsToTransfer: 100_000, ...ctx });
  const answers: QueryResult[] = [];
  for (let s = 0; s < SHARDS; s++) answers.push(await ch.query(onShard(split.shardQuery, s), { settings: { max_threads: 4 } }));
  return { split, answers };
}

function mergeIn(split: ReturnType<typeof splitQuery>, answers: QueryResult[], order: number[]) {
  const m = split.createMerger();
  for (const s of order) m.add(s, answers[s]!.rows, answers[s]!.meta);
  return m.finalize();
}

describe('ties at the LIMIT cut-off', () => {
  const cases: [string, string, Partial<SplitContext>][] = [
    ['shard_size top-k', 'SELECT url, count() AS c FROM t GROUP BY url ORDER BY c DESC LIMIT 10', {}],
    ['shard_size top-k, count() not selected', 'SELECT url FROM t GROUP BY url ORDER BY count() DESC LIMIT 5', {}],
    [
      'LIMIT pushed down whole (keys hold the sharding key)',
      'SELECT uid, url, count() AS c FROM t GROUP BY uid, url ORDER BY c DESC LIMIT 7',
      { shardingKeyColumn: 'uid' },
    ],
    ['coordinator-only LIMIT', 'SELECT url, count() AS c, min(uid) AS u FROM t GROUP BY url ORDER BY c LIMIT 6', {}],
  ];
  for (const [name, sql, ctx] of cases) {
    test(`${name}: every arrival order and every run gives the same rows`, async () => {
      const first = await shardAnswers(sql, ctx);
      const base = mergeIn(first.split, first.answers, [0, 1, 2, 3]);
      // The cut-off really is a tie: the last row's count is shared by rows left out.
      expect(base.data.length, name).toBeGreaterThan(0);
      fc.assert(
        fc.property(fc.shuffledSubarray([0, 1, 2, 3], { minLength: SHARDS }), (order) => {
          expect(mergeIn(first.split, first.answers, order), `${name}: arrival order ${order.join(',')}`).toEqual(base);
        }),
        { numRuns: 24 },
      );
      // Repeated runs: the shards' own answers (with their tie-breakers) do not change either.
      for (let run = 0; run < 3; run++) {
        const again = await shardAnswers(sql, ctx);
        expect(
          again.answers.map((a) => a.rows),
          `${name}: shard answers of run ${run + 2}`,
        ).toEqual(first.answers.map((a) => a.rows));
        expect(mergeIn(again.split, again.answers, [3, 1, 0, 2]), `${name}: run ${run + 2}`).toEqual(base);
      }
    });
  }

  test('the shard SQL breaks ties on the group keys after the user ORDER BY', async () => {
    const topk = (await shardAnswers(cases[0]![1], {})).split.shardQuery;
    expect(printSelect(topk)).toMatch(/ORDER BY count\(\) DESC, url LIMIT 10$/);
    const whole = (await shardAnswers(cases[2]![1], cases[2]![2])).split.shardQuery;
    expect(printSelect(whole)).toMatch(/ORDER BY count\(\) DESC, uid, url LIMIT 7$/);
  });

  test('the tied rows at the cut-off are the smallest keys (the documented rule)', async () => {
    const { split, answers } = await shardAnswers('SELECT url, count() AS c FROM t GROUP BY url ORDER BY c DESC LIMIT 10', { shardSizeFactor: 100 });
    const got = mergeIn(split, answers, [2, 0, 3, 1]).data as { url: string; c: string }[];
    // With every group sent (no shard cut), the answer is the exact one: count desc, then url asc.
    const all = await ch.query(
      `SELECT url, count() AS c FROM (${Array.from({ length: SHARDS }, (_, s) => `SELECT url FROM t_${s}`).join(' UNION ALL ')}) GROUP BY url ORDER BY c DESC, url LIMIT 10`,
    );
    expect(got).toEqual(all.rows);
    const lastCount = got[got.length - 1]!.c;
    const tiedTotal = (
      await ch.query(
        `SELECT count() AS n FROM (SELECT url, count() AS c FROM (${Array.from({ length: SHARDS }, (_, s) => `SELECT url FROM t_${s}`).join(' UNION ALL ')}) GROUP BY url) WHERE c = ${lastCount}`,
      )
    ).rows[0]!.n;
    expect(Number(tiedTotal), 'more urls tie at the cut-off than fit').toBeGreaterThan(got.filter((r) => r.c === lastCount).length);
  });
});
