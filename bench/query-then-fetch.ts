// Query-then-fetch vs one round for wide-row `ORDER BY score DESC, id LIMIT k`, on three Debian
// clickhouse-server 18.16 servers behind the local shard functions (docs/benchmarks.md#query-then-fetch):
// per row width and k, the bytes the shards' answers carried (round one, the rows) and the wall time
// of each, medians over alternating orders. Every two-round answer is compared with the one-round one.
import { randomUUID } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import { parseTopology } from '../shared/core/config/load.js';
import type { ShardRequest } from '../shared/core/protocol/shard-wire.js';
import { createHedgeState } from '../shared/core/scatter/hedge.js';
import type { ShardInvoker } from '../shared/core/scatter/invoker.js';
import { PLANNERS } from '../shared/core/scatter/planners.js';
import { runQuery, type QueryResponse } from '../shared/core/scatter/run-query.js';
import { startLocalShards } from '../local/stack.js';
import { chHttp, startCluster } from './_ch-cluster.js';
import { quantile, r2, table, timeInOrders } from './_stats.js';

const PORT_BASE = 20580;
const SHARDS = 3;
const T = 'default.docs_dist';

export async function run(opts: { quick: boolean }): Promise<{ table: string; json: Record<string, unknown> }> {
  const rows = opts.quick ? 30_000 : 60_000;
  const reps = opts.quick ? 5 : 9;
  const cluster = await startCluster(SHARDS, PORT_BASE, 'scatter');
  const json: Record<string, unknown> = { rows, reps };
  const out: (string | number)[][] = [];
  let shards: Awaited<ReturnType<typeof startLocalShards>> | undefined;
  try {
    await Promise.all(
      cluster.urls.map(async (url, i) => {
        await chHttp(url, 'CREATE TABLE default.docs (id UInt64, score UInt32, body String) ENGINE = MergeTree ORDER BY id');
        await chHttp(
          url,
          `INSERT INTO default.docs SELECT number AS id, intHash32(number) % 1000000 AS score, concat(toString(number), arrayStringConcat(arrayMap(x -> 'x', range(2000)))) AS body FROM numbers(${rows}) WHERE number % ${SHARDS} = ${i}`,
        );
      }),
    );
    const topo = parseTopology({
      cluster: 'scatter',
      shards: cluster.urls.map((url) => ({ weight: 1, replicas: [{ url }] })),
      tables: { [T]: { local: 'default.docs', shardingKey: { column: 'id', type: 'UInt64', function: 'identity' } } },
      query: { timeoutMs: 60_000 },
    });
    shards = await startLocalShards(topo);
    const hedgeState = createHedgeState();
    const bytes = { round1: 0, rows: 0 };
    const inner = shards.invoker;
    const invoker: ShardInvoker = {
      invoke: async (shard: number, req: ShardRequest, signal: AbortSignal) => {
        const r = await inner.invoke(shard, req, signal);
        bytes[JSON.stringify(req).includes('_qtf_o') ? 'round1' : 'rows'] += Buffer.byteLength(JSON.stringify(r));
        return r;
      },
    };
    const ask = async (sql: string, qtf: '0' | '1') => {
      const r = await runQuery(
        { sql, settings: { ch_scatter_query_then_fetch: qtf } },
        { topo, invoker, ...PLANNERS, hedgeState, queryId: randomUUID(), behindApiGateway: false },
      );
      if (r.status !== 200) throw new Error(`${r.status}: ${JSON.stringify(r.body).slice(0, 300)}`);
      return r.body as QueryResponse;
    };
    for (const width of [0, 100, 500, 2000]) {
      for (const k of [10, 100, 1000]) {
        const body = width === 0 ? '' : `, substring(body, 1, ${width}) AS b`;
        const sql = `SELECT id, score${body} FROM ${T} ORDER BY score DESC, id LIMIT ${k}`;
        bytes.round1 = bytes.rows = 0;
        const one = await ask(sql, '0');
        const oneBytes = bytes.rows;
        bytes.round1 = bytes.rows = 0;
        const two = await ask(sql, '1');
        const twoBytes = { ...bytes };
        if (!two.queryThenFetch?.applied || !isDeepStrictEqual(one.data, two.data)) throw new Error(`two rounds differ from one: ${sql}`);
        const ms = await timeInOrders(
          [
            ['one', 'two'],
            ['two', 'one'],
          ] as const,
          reps,
          (v) => ask(sql, v === 'one' ? '0' : '1'),
        );
        const oneMs = quantile(ms.one, 0.5);
        const twoMs = quantile(ms.two, 0.5);
        json[`w${width}_k${k}`] = { oneBytes, twoRound1Bytes: twoBytes.round1, twoRowsBytes: twoBytes.rows, oneMs: r2(oneMs), twoMs: r2(twoMs) };
        out.push([
          width,
          k,
          oneBytes,
          twoBytes.round1,
          twoBytes.rows,
          r2((twoBytes.round1 + twoBytes.rows) / oneBytes),
          r2(oneMs),
          r2(twoMs),
          r2(twoMs / oneMs),
        ]);
      }
    }
  } finally {
    await shards?.stop();
    await cluster.stop();
  }
  const head = [
    'text bytes/row',
    'k',
    'one round: bytes',
    'two: round 1 bytes',
    'two: round 2 bytes',
    'bytes two/one',
    'one ms (p50)',
    'two ms (p50)',
    'time two/one',
  ];
  return { table: table(head, out), json };
}
