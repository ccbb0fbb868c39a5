// Statistics pruning, coverage and pinned paging on clickhouse-server 18.16: shard 0 has two
// replicas that differ (the second holds rows the first lacks), shard 1 one. The statistics are read
// through the shard handlers as the read-only shard user; a DateTime, Date and integer range skip the
// shard that cannot match; a missing shard's answer states its coverage; pages stay on one replica.
import { beforeAll, describe, expect, it } from 'vitest';
import { createShardHandler, envShardDeps } from '../../functions/shard/handler.js';
import { parseTopology } from '../../shared/core/config/load.js';
import type { Topology } from '../../shared/core/config/schema.js';
import type { ExplainResponse } from '../../shared/core/plan/explain.js';
import type { ShardRequest, ShardResponse } from '../../shared/core/protocol/shard-wire.js';
import { createHedgeState } from '../../shared/core/scatter/hedge.js';
import type { ShardInvoker } from '../../shared/core/scatter/invoker.js';
import { PLANNERS } from '../../shared/core/scatter/planners.js';
import { runExplain, runQuery, type QueryResponse, type RunDeps } from '../../shared/core/scatter/run-query.js';
import { createStatisticsCache, type StatisticsCache } from '../../shared/core/scatter/table-statistics.js';
import { chHttp, useChServers } from '../support/ch-servers.js';

process.env.POWERTOOLS_LOG_LEVEL = 'SILENT';
const servers = useChServers({ n: 3, portBase: 21100 });
const DIST = 'default.st18_dist';
const LOCAL = 'default.st18';
type Fn = (p: ShardRequest) => Promise<ShardResponse>;
let topo: Topology;
let shards: Fn[];

beforeAll(async () => {
  const urls = servers.current.urls;
  for (const url of urls) await chHttp(url, `CREATE TABLE ${LOCAL} (id UInt64, ts DateTime, d Date, n Int32) ENGINE = MergeTree() ORDER BY id`);
  // Shard 0 (both replicas): January; replica 1 also holds 5 rows replica 0 has not received. Shard 1: March.
  const jan = "number * 2, toDateTime('2024-01-01 00:00:00') + number * 3600, toDate('2024-01-01') + intDiv(number, 24), number";
  await chHttp(urls[0]!, `INSERT INTO ${LOCAL} SELECT ${jan} FROM system.numbers LIMIT 40`);
  await chHttp(urls[1]!, `INSERT INTO ${LOCAL} SELECT ${jan} FROM system.numbers LIMIT 45`);
  await chHttp(
    urls[2]!,
    `INSERT INTO ${LOCAL} SELECT number * 2 + 1, toDateTime('2024-03-01 00:00:00') + number * 3600, toDate('2024-03-01'), 1000 + number FROM system.numbers LIMIT 30`,
  );
  topo = parseTopology({
    cluster: 'c',
    shards: [{ replicas: [{ url: urls[0]! }, { url: urls[1]! }] }, { replicas: [{ url: urls[2]! }] }],
    tables: { [DIST]: { local: LOCAL, shardingKey: { column: 'id', type: 'UInt64', function: 'identity' }, statistics: ['ts', 'd', 'n'] } },
    query: { hedge: { enabled: false }, timeoutMs: 20_000 },
  });
  shards = topo.shards.map((s, i) => createShardHandler(envShardDeps({ CH_SCATTER_SHARD: JSON.stringify({ shard: i, replicas: s.replicas }) })) as Fn);
}, 120_000);

function depsFor(statistics: StatisticsCache | undefined, down?: (shard: number, replica: number) => boolean): RunDeps & { sent: ShardRequest[] } {
  const sent: ShardRequest[] = [];
  const invoker: ShardInvoker = {
    invoke: async (shard, p) => {
      sent.push(p);
      if (down?.(shard, p.replica)) return { ok: false, shard, replica: p.replica, error: { kind: 'unavailable', message: 'down for the test' } };
      return shards[shard]!(p);
    },
  };
  return { sent, topo, invoker, ...PLANNERS, ...(statistics ? { statistics } : {}), hedgeState: createHedgeState(), queryId: 'q-18', behindApiGateway: false };
}

describe('statistics on 18.16', () => {
  it('DateTime, Date and integer ranges skip the shard that cannot match; the answers are exact', async () => {
    const statistics = createStatisticsCache();
    const deps = depsFor(statistics);
    // A cold read may take longer than a query waits for it: wait until every shard's statistics are in.
    await expect.poll(async () => (await statistics.source(topo, deps.invoker, Date.now() + 5000)(DIST))?.shards.every(Boolean)).toBe(true);
    for (const [where, skipped, count] of [
      ["ts >= '2024-02-01 00:00:00'", [true, false], 30],
      ["ts < toDateTime('2024-01-02 00:00:00')", [false, true], 24],
      ["d BETWEEN '2024-03-01' AND '2024-03-31'", [true, false], 30],
      ['n IN (5, 1005)', [false, false], 2],
      ['n > 2000', [false, true], 0],
    ] as const) {
      const ex = (await runExplain({ sql: `SELECT count() AS c FROM ${DIST} WHERE ${where}` }, deps)).body as ExplainResponse;
      expect(
        ex.shards.map((s) => s.skipped),
        where,
      ).toEqual(skipped);
      for (const s of ex.shards) if (s.skipped) expect(s.reason).toMatch(/^statistics: /);
      // Replica 0 of shard 0 answers (the rotation's first): its 40 rows.
      const q = (
        await runQuery(
          { sql: `SELECT count() AS c FROM ${DIST} WHERE ${where}` },
          depsFor(statistics, (s, r) => s === 0 && r === 1),
        )
      ).body as QueryResponse;
      expect(Number(q.data[0]!.c), where).toBe(count);
    }
  });

  it('a missing shard: the answer covers the rows of the shards that answered', async () => {
    const statistics = createStatisticsCache();
    const all = depsFor(statistics);
    await expect.poll(async () => (await statistics.source(topo, all.invoker, Date.now() + 5000)(DIST))?.shards.every(Boolean)).toBe(true);
    const b = (
      await runQuery(
        { sql: `SELECT count() AS c FROM ${DIST}` },
        depsFor(statistics, (s) => s === 1),
      )
    ).body as QueryResponse;
    expect(b.partial).toBe(true);
    const [c] = b.coverage!;
    expect(c!.rowsAsked).toBe(String(Number(c!.rowsAnswered) + 30));
    expect(['40', '45']).toContain(c!.rowsAnswered);
  });
});

describe('pinned paging on 18.16', () => {
  it('every page of shard 0 reads the replica the first page read; the pages hold exactly its rows', async () => {
    for (const skipFirst of [false, true]) {
      const deps = depsFor(undefined);
      if (skipFirst) await runQuery({ sql: `SELECT count() FROM ${DIST}` }, deps); // turn the rotation
      deps.sent.length = 0;
      const got: number[] = [];
      let cursor: string | undefined;
      for (let page = 0; page < 40; page++) {
        const b = (await runQuery({ sql: `SELECT id FROM ${DIST} ORDER BY id LIMIT 7`, ...(cursor ? { cursor } : {}) }, deps)).body as QueryResponse;
        expect(b.replicaChanged).toBeUndefined();
        got.push(...b.data.map((r) => Number(r.id)));
        cursor = b.cursor;
        if (!cursor) break;
      }
      const read = new Set(deps.sent.filter((p) => p.type === 'query' && p.shard === 0).map((p) => p.replica));
      expect(read.size).toBe(1);
      const shard0 = Array.from({ length: read.has(0) ? 40 : 45 }, (_, i) => i * 2);
      const shard1 = Array.from({ length: 30 }, (_, i) => i * 2 + 1);
      expect(got).toEqual([...shard0, ...shard1].sort((a, b) => a - b));
    }
  });
});
