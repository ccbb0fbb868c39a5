// TPUT's two statements, run by chdb against the query they serve: the pre-pass round returns
// exactly the groups whose local score reaches ceil(the shard's k-th best score / the shards asked)
// (all of them below k groups), and the query over the candidates answers what the query answers
// once the candidates hold its top groups (key literals quoted and typed so that they select
// exactly those groups: a quote in a LowCardinality(String) key, a Date key, one candidate).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ClickHouseAccess } from '../../../shared/core/clickhouse/port.js';
import { parseTopology } from '../../../shared/core/config/load.js';
import { oneRoundRowCap, oneRoundSql } from '../../../shared/core/plan/tput/one-round.js';
import { candidatesQuery, roundBase } from '../../../shared/core/plan/tput/rounds.js';
import { tputEligibility, type TputShape } from '../../../shared/core/plan/tput/shape.js';
import { parseSelect } from '../../../shared/core/sql/parse.js';
import { printSelect } from '../../../shared/core/sql/print.js';
import { startEmbeddedCluster, type EmbeddedCluster } from '../../support/embedded-cluster.js';

const DIST = 'default.tput_rounds_dist';
const LOCAL = 'default.tput_rounds';
const topo = parseTopology({
  cluster: 'c',
  shards: [{ replicas: [{ url: 'http://a:8123' }] }, { replicas: [{ url: 'http://b:8123' }] }, { replicas: [{ url: 'http://c:8123' }] }],
  tables: { [DIST]: { local: LOCAL, shardingKey: { column: 'id', type: 'UInt64', function: 'identity' } } },
});
const NAMES = ['a', 'b', 'd', 'e', 'f', "o'b"];
const DAYS = ['2024-01-01', '2024-01-02'];

let cluster: EmbeddedCluster;
let engine: ClickHouseAccess;
const rows = async (sql: string) => (await engine.query(sql.replaceAll(DIST, LOCAL))).rows;

beforeAll(async () => {
  cluster = await startEmbeddedCluster({ shards: 1 });
  engine = cluster.shards[0]!;
  await engine.exec(`CREATE TABLE ${LOCAL} (id UInt64, name LowCardinality(String), day Date, v UInt32) ENGINE = MergeTree ORDER BY id`);
  // Group g (name, day) has 3 + 2g rows with v > 1 (every count distinct: no tie to order) and one
  // row with v = 1 that the WHERE drops; o'b's groups are the largest.
  const values: string[] = [];
  let id = 0;
  for (const [n, name] of NAMES.entries()) {
    for (const [d, day] of DAYS.entries()) {
      const g = n * DAYS.length + d;
      const literal = name.replace("'", "\\'");
      for (let i = 0; i < 3 + 2 * g; i++) values.push(`(${id++}, '${literal}', '${day}', ${2 + i})`);
      values.push(`(${id++}, '${literal}', '${day}', 1)`);
    }
  }
  await engine.exec(`INSERT INTO ${LOCAL} VALUES ${values.join(', ')}`);
}, 120_000);
afterAll(async () => {
  await cluster?.stop();
});

function shapeOf(sql: string): TputShape {
  const e = tputEligibility(parseSelect(sql), topo, 'deny');
  if (!e.ok) throw new Error(e.reason);
  return e.shape;
}
const groupKey = (r: Record<string, unknown>) => `${r._tput_k0}\u0000${r._tput_k1}`;
const KEY_TYPES = [
  { name: '_tput_k0', type: 'LowCardinality(String)' },
  { name: '_tput_k1', type: 'Date' },
];

describe("TPUT's statements on chdb", () => {
  for (const where of ['v > 1', "v > 1 AND name = 'a'"]) {
    it(`the pre-pass round keeps the groups reaching ceil(k-th score / shards asked), or all below k groups: WHERE ${where}`, async () => {
      const shape = shapeOf(`SELECT name, day, count() AS c, max(v) FROM ${DIST} WHERE ${where} GROUP BY name, day ORDER BY c DESC, name LIMIT 3 OFFSET 1`);
      expect(shape.k).toBe(4);
      const inner = printSelect(roundBase(shape));
      // Every group and its local score, as the engine computes them.
      const all = await rows(inner);
      const scores = all.map((r) => Number(r._tput_s)).sort((a, b) => b - a);
      const shardsAsked = 3;
      const kept = scores.length < shape.k ? all : all.filter((r) => Number(r._tput_s) >= Math.ceil(scores[shape.k - 1]! / shardsAsked));
      const round = await rows(oneRoundSql(inner, 2, shape.k, shardsAsked, oneRoundRowCap(shape.k, 'exact')));
      expect(round.map(groupKey).sort()).toEqual(kept.map(groupKey).sort());
      if (where === 'v > 1') expect(round.length).toBeLessThan(all.length); // the threshold dropped some
    });
  }

  it('the query over its top groups as candidates answers the query (two keys, a quote in the name, OFFSET)', async () => {
    const sql = `SELECT name, day, count() AS c, max(v) FROM ${DIST} WHERE v > 1 GROUP BY name, day ORDER BY c DESC, name LIMIT 3 OFFSET 1`;
    const shape = shapeOf(sql);
    const top = await rows(`SELECT name, day FROM ${DIST} WHERE v > 1 GROUP BY name, day ORDER BY count() DESC, name LIMIT ${shape.k}`);
    expect(top.map((r) => r.name)).toContain("o'b");
    const overCandidates = candidatesQuery(
      shape,
      top.map((r) => [r.name, r.day]),
      KEY_TYPES,
    );
    const answer = await rows(printSelect(overCandidates));
    expect(answer).toEqual(await rows(sql));
    expect(answer).toHaveLength(3);
  });

  it('one candidate selects exactly its group', async () => {
    const sql = `SELECT name, day, count() AS c FROM ${DIST} WHERE v > 1 GROUP BY name, day ORDER BY c DESC, name LIMIT 1`;
    const expected = await rows(sql);
    expect(expected[0]!.name).toBe("o'b");
    const answer = await rows(printSelect(candidatesQuery(shapeOf(sql), [[expected[0]!.name, expected[0]!.day]], KEY_TYPES)));
    expect(answer).toEqual(expected);
  });
});
