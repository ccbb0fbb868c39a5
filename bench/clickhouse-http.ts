// The ClickHouse HTTP interface's overhead against the JSON API
// (docs/benchmarks.md#7-the-clickhouse-http-interface-clickhouse-http), on the e2e bench's cluster
// and data, in the same run:
//   - three Debian clickhouse-server 18.16 instances on loopback, default.events sharded by id % 3
//     (identity key), 3M rows (1M with --quick); a Distributed table on server 0 as the reference;
//   - JSON API, fast path: runQuery ({sql}), the coordinator's own merge;
//   - JSON API, general path: runQuery with ch_scatter_path = 'general' (stage one on the shards,
//     the final stage on one shard's engine, parsed back into the API's JSON);
//   - ClickHouse interface: handleClickHouseHttp (POST / with the SQL, FORMAT JSON): the general path
//     with the final stage's bytes passed through, plus the interface's own work (reading the
//     request, the shards' version and time zone, headers);
//   - Distributed: the same SQL over HTTP to server 0.
// Shard functions are the local stack's (startLocalShards) behind the local Invoke endpoint, through
// the coordinator's default invoker. Paths rotate per repetition; medians. The interface's answer is
// checked against the JSON API's (the same rows) so a fast wrong answer would not count.
import { randomUUID } from 'node:crypto';
import { setMaxListeners } from 'node:events';
import { parseTopology } from '../shared/core/config/load.js';
import { planQuery } from '../shared/core/plan/index.js';
import { planTwoStage } from '../shared/core/plan/two-stage/plan.js';
import { runQuery, type QueryResponse } from '../shared/core/scatter/run-query.js';
import { createHedgeState } from '../shared/core/scatter/hedge.js';
import { createShardReadAccess } from '../shared/core/scatter/shard-read-access.js';
import { handleClickHouseHttp } from '../shared/core/clickhouse-http/handle.js';
import { generalSelect } from '../shared/core/clickhouse-http/distributed.js';
import type { RawQuery } from '../shared/core/clickhouse-http/types.js';
import { startLocalShards } from '../local/stack.js';
import { chHttp, loadEvents, startCluster } from './_ch-cluster.js';
import { quantile, r2, table, timeInOrders } from './_stats.js';

const PORT_BASE = 20040;
const SHARDS = 3;

const QUERIES: Record<string, string> = {
  full_aggregate: 'SELECT count() AS c, sum(amount) AS s, max(user) AS mx FROM default.events_dist',
  group_by_top10: 'SELECT user, count() AS c, sum(amount) AS s FROM default.events_dist GROUP BY user ORDER BY c DESC, user LIMIT 10',
  in_list_sharding_key: 'SELECT count() AS c, sum(amount) AS s FROM default.events_dist WHERE id IN (3, 300, 3000, 30000, 300000, 900003)',
  rows_limit_1000: 'SELECT id, user, amount FROM default.events_dist WHERE sensor = 7 ORDER BY id LIMIT 1000',
};

const canon = (rows: Record<string, unknown>[]) =>
  JSON.stringify(rows.map((r) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, typeof v === 'number' ? Number(v.toPrecision(9)) : String(v)]))));

export async function run(opts: { quick: boolean }): Promise<{ table: string; json: Record<string, unknown> }> {
  setMaxListeners(0);
  const rows = opts.quick ? 1_000_000 : 3_000_000;
  const reps = opts.quick ? 5 : 15;
  const cluster = await startCluster(SHARDS, PORT_BASE, 'scatter');
  const json: Record<string, unknown> = {};
  const out: (string | number)[][] = [];
  let shards: Awaited<ReturnType<typeof startLocalShards>> | undefined;
  try {
    await loadEvents(cluster, rows);
    const head = cluster.urls[0]!;
    const topo = parseTopology({
      cluster: 'scatter',
      shards: cluster.urls.map((url) => ({ weight: 1, replicas: [{ url }] })),
      tables: { 'default.events_dist': { local: 'default.events', shardingKey: { column: 'id', type: 'UInt64', function: 'identity' } } },
      query: { timeoutMs: 60_000 },
    });
    shards = await startLocalShards(topo);
    const invoker = shards.invoker;
    const hedgeState = createHedgeState();
    const runDeps = (queryId: string) => ({
      topo,
      invoker,
      planQuery,
      planTwoStage,
      hedgeState,
      queryId,
      behindApiGateway: false,
    });
    const jsonApi = async (sql: string, general: boolean) => {
      const r = await runQuery({ sql, ...(general ? { settings: { ch_scatter_path: 'general' } } : {}) }, runDeps(randomUUID()));
      if (r.status !== 200) throw new Error(`JSON API ${r.status}: ${JSON.stringify(r.body).slice(0, 300)}`);
      return r.body as QueryResponse;
    };
    const catalog = createShardReadAccess({ invoker, shard: 0, replicas: [0] });
    const raw: RawQuery = (sql, o) => catalog.queryRaw(sql, { format: o.format, ...(o.settings ? { settings: o.settings } : {}) });
    const select = generalSelect({ topo, invoker, hedgeState, planQuery, planTwoStage, behindApiGateway: false });
    const iface = async (sql: string) => {
      const r = await handleClickHouseHttp(
        {
          method: 'POST',
          path: '/',
          query: new URLSearchParams({ default_format: 'JSON', output_format_json_quote_64bit_integers: '1' }),
          headers: {},
          body: Buffer.from(sql),
        },
        { topo, raw, select },
      );
      if (r.status !== 200) throw new Error(`interface ${r.status}: ${r.body.toString().slice(0, 300)}`);
      return JSON.parse(r.body.toString('utf8')) as { data: Record<string, unknown>[] };
    };
    const distributed = async (sql: string) =>
      JSON.parse(await chHttp(head, `${sql} FORMAT JSON`, { output_format_json_quote_64bit_integers: '1' })) as { data: Record<string, unknown>[] };

    for (const [name, sql] of Object.entries(QUERIES)) {
      const paths = {
        distributed: () => distributed(sql),
        fast: () => jsonApi(sql, false),
        general: () => jsonApi(sql, true),
        iface: () => iface(sql),
      } as const;
      const answers: Partial<Record<keyof typeof paths, string>> = {};
      for (const p of Object.keys(paths) as (keyof typeof paths)[]) answers[p] = canon((await paths[p]()).data); // warm-up
      const keys = Object.keys(paths) as (keyof typeof paths)[];
      // Repetition i starts at path i (mod 4): the rotation.
      const rotations = keys.map((_, i) => keys.map((__, j) => keys[(i + j) % keys.length]!));
      const last: Partial<Record<keyof typeof paths, Record<string, unknown>[]>> = {};
      const ms = await timeInOrders(rotations, reps, async (p) => {
        last[p] = (await paths[p]()).data;
      });
      for (const p of keys) answers[p] = canon(last[p]!);
      const same = answers.iface === answers.general && answers.general === answers.fast && answers.fast === answers.distributed;
      const m = (p: keyof typeof paths) => r2(quantile(ms[p], 0.5));
      const e = {
        distributed_ms: m('distributed'),
        json_api_fast_ms: m('fast'),
        json_api_general_ms: m('general'),
        clickhouse_interface_ms: m('iface'),
        interface_minus_general_ms: r2(m('iface') - m('general')),
        interface_over_fast: r2(m('iface') / m('fast')),
        interface_over_distributed: r2(m('iface') / m('distributed')),
        same_result: same,
        repetitions: reps,
      };
      json[name] = e;
      out.push([
        name,
        e.distributed_ms,
        e.json_api_fast_ms,
        e.json_api_general_ms,
        e.clickhouse_interface_ms,
        e.interface_minus_general_ms,
        e.interface_over_fast,
        e.interface_over_distributed,
        same ? 'yes' : 'NO',
      ]);
    }
    json.rows = rows;
  } finally {
    await shards?.stop();
    await cluster.stop();
  }
  json.method = `3 x clickhouse-server 18.16 on loopback; Distributed table over HTTP vs runQuery (fast path, general path) and handleClickHouseHttp (FORMAT JSON), shard functions of the local stack behind the local Invoke endpoint; rotating order, median of ${reps}`;
  return {
    table:
      table(
        [
          'query',
          'Distributed ms',
          'JSON API fast ms',
          'JSON API general ms',
          'ClickHouse interface ms',
          'interface - general ms',
          'interface / fast',
          'interface / Distributed',
          'same answer',
        ],
        out,
      ) + `\n(${rows.toLocaleString('en-US')} rows over 3 shards; medians of ${reps} rotating runs)`,
    json,
  };
}
