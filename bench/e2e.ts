// ch-scatter against ClickHouse's own Distributed table
// (docs/benchmarks.md#1-end-to-end-against-the-distributed-table-e2e), on the same servers and the same
// data, in the same run:
//   - three Debian clickhouse-server 18.16 instances on loopback (ports 19600-19602 HTTP,
//     19650-19652 native), each holding one shard of default.events (id % 3 = shard, i.e. the
//     identity sharding key on the UInt64 `id`; 18.16 has no xxHash64) and of default.users;
//   - Distributed tables events_dist / users_dist on server 0, queried over HTTP (FORMAT JSON);
//   - ch-scatter: runQuery (the coordinator core) in THIS process, shard functions served by the
//     local stack (startLocalShards: the real shard handler with the HTTP ClickHouse adapter; for
//     HTTP replicas it runs in the stack's process) behind the local Lambda Invoke endpoint, reached
//     through the coordinator's default invoker (SigV4-signed node:http, as in AWS);
//   - ch-scatter (SDK): the same, through the @aws-sdk/client-lambda invoker (CH_SCATTER_INVOKER=sdk).
// A third path isolates the Lambda hop: the same runQuery with an IN-PROCESS invoker that calls the
// shard core (executeShardRequest + the HTTP adapter) directly, answers JSON round-tripped as the
// Invoke API would (ch_scatter_inproc_ms). The paths alternate per repetition; medians of wall time per query. Each query's answers are
// compared (floats to 9 significant digits): a fast wrong answer would not count.
import { randomUUID } from 'node:crypto';
import { setMaxListeners } from 'node:events';
import { parseTopology } from '../shared/core/config/load.js';
import { planQuery } from '../shared/core/plan/index.js';
import { runQuery, type QueryResponse } from '../shared/core/scatter/run-query.js';
import { createHedgeState } from '../shared/core/scatter/hedge.js';
import { startLocalShards } from '../local/stack.js';
import { createHttpAccess } from '../shared/adapters/clickhouse/http.js';
import { executeShardRequest } from '../shared/core/shard/execute.js';
import type { ShardInvoker } from '../shared/core/scatter/invoker.js';
import type { ShardResponse } from '../shared/core/protocol/shard-wire.js';
import { createLambdaInvoker } from '../shared/adapters/aws/lambda-invoker.js';
import { chHttp, loadEvents, startCluster } from './_ch-cluster.js';
import { quantile, r2, table } from './_stats.js';
import { normalize } from './_compare.js';

const PORT_BASE = 19600;
const SHARDS = 3;

// `scatterSql`: what the ch-scatter paths send when it differs from what the Distributed table gets
// (ch-scatter's own settings, which the Distributed table does not know).
const QUERIES: Record<string, { sql: string; note: string; scatterSql?: string }> = {
  full_aggregate: { sql: 'SELECT count() AS c, sum(amount) AS s, avg(amount) AS a, max(user) AS mx FROM default.events_dist', note: 'scan of every row' },
  group_by_order_limit: {
    sql: 'SELECT user, count() AS c, sum(amount) AS s FROM default.events_dist GROUP BY user ORDER BY c DESC, user LIMIT 10',
    note: 'high-cardinality GROUP BY (~30k users), top 10 by count: exact by default (TPUT: one pre-pass round, then the query over the candidates)',
  },
  group_by_order_limit_shard_size: {
    sql: 'SELECT user, count() AS c, sum(amount) AS s FROM default.events_dist GROUP BY user ORDER BY c DESC, user LIMIT 10',
    scatterSql:
      "SELECT user, count() AS c, sum(amount) AS s FROM default.events_dist GROUP BY user ORDER BY c DESC, user LIMIT 10 SETTINGS ch_scatter_top_count = 'shard_size'",
    note: 'the same with the approximate shard_size method opted into (one round, each shard sends its top 25 groups)',
  },
  in_list_sharding_key: {
    sql: 'SELECT count() AS c, sum(amount) AS s FROM default.events_dist WHERE id IN (3, 300, 3000, 30000, 300000, 900003)',
    note: 'every id is 0 mod 3: ch-scatter asks shard 0 only; 18.16 asks all three',
  },
  global_in: {
    sql: "SELECT count() AS c, sum(amount) AS s FROM default.events_dist WHERE user GLOBAL IN (SELECT user FROM default.users_dist WHERE country = 'NL')",
    note: 'subquery over users_dist shipped to every shard',
  },
};

export async function run(opts: { quick: boolean }): Promise<{ table: string; json: Record<string, unknown> }> {
  setMaxListeners(0);
  const rows = opts.quick ? 1_000_000 : 3_000_000;
  const reps = opts.quick ? 5 : 15;
  const cluster = await startCluster(SHARDS, PORT_BASE, 'scatter');
  const json: Record<string, unknown> = {};
  const out: (string | number)[][] = [];
  let shards: Awaited<ReturnType<typeof startLocalShards>> | undefined;
  const closers: Array<() => Promise<void>> = [];
  try {
    const tLoad = Date.now();
    await loadEvents(cluster, rows, { users: true });
    const head = cluster.urls[0]!;
    const loadMs = Date.now() - tLoad;

    const topo = parseTopology({
      cluster: 'scatter',
      shards: cluster.urls.map((url) => ({ weight: 1, replicas: [{ url }] })),
      tables: {
        'default.events_dist': { local: 'default.events', shardingKey: { column: 'id', type: 'UInt64', function: 'identity' } },
        'default.users_dist': { local: 'default.users', shardingKey: { column: 'user', type: 'UInt32', function: 'identity' } },
      },
      query: { timeoutMs: 60_000 },
    });
    shards = await startLocalShards(topo);
    const hedgeState = createHedgeState();
    const accesses = cluster.urls.map((url) => createHttpAccess({ url }));
    closers.push(async () => {
      await Promise.all(accesses.map((a) => a.close()));
    });
    const inproc: ShardInvoker = {
      invoke: async (shard, payload, signal) =>
        JSON.parse(JSON.stringify(await executeShardRequest(payload, accesses[shard]!, { now: Date.now, signal }))) as ShardResponse,
    };
    const inprocState = createHedgeState();
    const scatterWith = async (sql: string, invoker: ShardInvoker, state: typeof hedgeState) => {
      const r = await runQuery({ sql }, { topo, invoker, planQuery, hedgeState: state, queryId: randomUUID(), behindApiGateway: false });
      if (r.status !== 200) throw new Error(`ch-scatter ${r.status}: ${JSON.stringify(r.body).slice(0, 400)}`);
      return r.body as QueryResponse;
    };
    const scatter = (sql: string) => scatterWith(sql, shards!.invoker, hedgeState);
    const sdkInvoker = createLambdaInvoker(SHARDS, { endpoint: shards.invokeUrl });
    closers.push(async () => sdkInvoker.close());
    const sdkState = createHedgeState();
    const scatterSdk = (sql: string) => scatterWith(sql, sdkInvoker, sdkState);
    const scatterInproc = (sql: string) => scatterWith(sql, inproc, inprocState);
    const distributed = async (sql: string) => {
      const text = await chHttp(head, `${sql} FORMAT JSON`, { output_format_json_quote_64bit_integers: '1' });
      return JSON.parse(text) as { data: Record<string, unknown>[]; statistics: { rows_read: number; elapsed: number } };
    };

    // The engine floor under ch-scatter: the planned shard SQL sent straight to the queried shards
    // in parallel over HTTP (no coordinator, no Invoke, no shard host). GLOBAL IN is left out
    // (its shard SQL needs the shipped external table).
    const direct = async (sql: string) => {
      const plan = await planQuery(sql, topo, {});
      const t0 = performance.now();
      await Promise.all(
        plan.shards
          .filter((p) => !p.skipped)
          .map((p) => chHttp(cluster.urls[p.shard]!, `${p.sql!} FORMAT JSON`, { output_format_json_quote_64bit_integers: '1' })),
      );
      return performance.now() - t0;
    };

    for (const [name, q0] of Object.entries(QUERIES)) {
      const q = { ...q0, sql: q0.scatterSql ?? q0.sql };
      const dSql = q0.sql;
      const dMs: number[] = [];
      const sMs: number[] = [];
      const xMs: number[] = [];
      const iMs: number[] = [];
      const kMs: number[] = [];
      const slowestShard: number[] = [];
      let d = await distributed(dSql); // warm-up (and the answers to compare)
      let s = await scatter(q.sql);
      d = await distributed(dSql);
      s = await scatter(q.sql);
      for (let i = 0; i < reps; i++) {
        // Alternate which goes first so neither always runs on a warmer cache.
        const order = i % 2 === 0 ? (['d', 's'] as const) : (['s', 'd'] as const);
        for (const which of order) {
          const t0 = performance.now();
          if (which === 'd') d = await distributed(dSql);
          else s = await scatter(q.sql);
          (which === 'd' ? dMs : sMs).push(performance.now() - t0);
          if (which === 's') slowestShard.push(Math.max(...s.statistics.shards.map((x) => x.elapsedMs)));
        }
        if (name !== 'global_in') xMs.push(await direct(q.sql));
        const t1 = performance.now();
        const si = await scatterInproc(q.sql);
        iMs.push(performance.now() - t1);
        if (normalize(si.data) !== normalize(s.data)) throw new Error(`${name}: the in-process path answered differently`);
        const t2 = performance.now();
        const sk = await scatterSdk(q.sql);
        kMs.push(performance.now() - t2);
        if (normalize(sk.data) !== normalize(s.data)) throw new Error(`${name}: the SDK path answered differently`);
      }
      const same = normalize(d.data) === normalize(s.data);
      const e = {
        distributed_ms: r2(quantile(dMs, 0.5)),
        ch_scatter_ms: r2(quantile(sMs, 0.5)),
        ratio: 0,
        rows_scanned: s.statistics.rowsRead,
        distributed_rows_read: d.statistics.rows_read,
        shards_queried: s.shards.queried,
        invoker: shards.invokerKind,
        ch_scatter_sdk_ms: r2(quantile(kMs, 0.5)),
        ratio_sdk: r2(quantile(kMs, 0.5) / quantile(dMs, 0.5)),
        ch_scatter_inproc_ms: r2(quantile(iMs, 0.5)),
        ratio_inproc: r2(quantile(iMs, 0.5) / quantile(dMs, 0.5)),
        direct_shard_sql_ms: xMs.length ? r2(quantile(xMs, 0.5)) : null,
        slowest_shard_call_ms: r2(quantile(slowestShard, 0.5)),
        distributed_p90_ms: r2(quantile(dMs, 0.9)),
        ch_scatter_p90_ms: r2(quantile(sMs, 0.9)),
        same_result: same,
        repetitions: reps,
        note: q.note,
        ...(same ? {} : { distributed_answer: d.data.slice(0, 3), ch_scatter_answer: s.data.slice(0, 3) }),
      };
      e.ratio = r2(e.ch_scatter_ms / e.distributed_ms);
      json[name] = e;
      out.push([
        name,
        e.distributed_ms,
        e.ch_scatter_ms,
        e.ratio,
        e.ch_scatter_sdk_ms,
        e.ratio_sdk,
        e.ch_scatter_inproc_ms,
        e.ratio_inproc,
        e.direct_shard_sql_ms ?? '-',
        e.slowest_shard_call_ms,
        e.rows_scanned,
        e.distributed_rows_read,
        e.shards_queried,
        same ? 'yes' : 'NO',
      ]);
    }
    json.rows = rows;
    json.load_ms = loadMs;
  } finally {
    for (const c of closers) await c().catch(() => undefined);
    await shards?.stop();
    await cluster.stop();
  }
  json.method = `3 x clickhouse-server 18.16 on loopback; Distributed table over HTTP on server 0 vs runQuery in-process + shard functions (the shard handler with the HTTP adapter, served by the local stack) behind the local Invoke endpoint, through the coordinator's default invoker (ch_scatter_ms) and the AWS SDK invoker (ch_scatter_sdk_ms); alternating, median of ${reps}`;
  json.target = 'ratio <= 1.3 on scans of >= 1M rows; < 1 where pruning narrows (in_list_sharding_key)';
  return {
    table:
      table(
        [
          'query',
          'Distributed ms',
          'ch-scatter ms',
          'ratio',
          'ch-scatter (SDK invoker) ms',
          'SDK ratio',
          'ch-scatter in-proc ms',
          'in-proc ratio',
          'shard SQL direct ms',
          'slowest shard call ms',
          'rows scanned (ch-scatter)',
          'rows read (Distributed)',
          'shards asked',
          'same answer',
        ],
        out,
      ) + `\n(${rows.toLocaleString('en-US')} rows over 3 shards; medians of ${reps} alternating runs)`,
    json,
  };
}
