// The general (two-stage) path against the fast path and ClickHouse's own Distributed table, on
// the same three Debian clickhouse-server 18.16 servers and the same data, in the same run
// (docs/benchmarks.md#two-stage-general-path-vs-fast-path-vs-distributed):
//   - Distributed: events_dist on server 0 over HTTP (FORMAT JSON);
//   - fast: runQuery with ch_scatter_path = 'fast' (the coordinator's TypeScript merge);
//   - general: runQuery with ch_scatter_path = 'general' (the two-stage planner's plan: stage one
//     as TabSeparatedWithNamesAndTypes states, the final stage on one shard's 18.16);
// both ch-scatter paths in this process, the shard functions behind the local Lambda Invoke
// endpoint (startLocalShards, the default SigV4 node:http invoker). Alternating order, medians.
// Also: the general path with every shard's rows shipped (ch_scatter_keep_initiator_rows = 0,
// where by default the final stage's shard keeps its own), the final stage's own cost (its invoke,
// from the general path's statistics) and the bytes it was sent. Every answer is compared with the Distributed table's (floats to 9 digits).
// Then the exact top count's two methods (ch_scatter_top_count 'every_group' and 'tput', both on
// the general path) against the Distributed table, on a skewed key (`user`) and a uniform one
// (`uuser`), with the rows and bytes each round moved (docs/benchmarks.md#exact-top-count-tput-vs-every-group).
import { randomUUID } from 'node:crypto';
import { setMaxListeners } from 'node:events';
import { parseTopology } from '../shared/core/config/load.js';
import { planQuery } from '../shared/core/plan/index.js';
import { planTwoStage } from '../shared/core/plan/two-stage/plan.js';
import { createHedgeState } from '../shared/core/scatter/hedge.js';
import { runQuery, type PlanFn, type QueryResponse } from '../shared/core/scatter/run-query.js';
import { startLocalShards } from '../local/stack.js';
import { chHttp, startCluster } from './_ch-cluster.js';
import { quantile, r2, table, timeInOrders } from './_stats.js';
import { normalize } from './_compare.js';

const PORT_BASE = 19870;
/** The general path without the initiator keeping its own rows: every shard's rows cross both hops. */
const SHIP_ALL = { ch_scatter_keep_initiator_rows: '0' };
const SHARDS = 3;
const T = 'default.events_dist';

interface BenchQuery {
  sql: string;
  /** Extra request settings for the fast path (its opt-ins). */
  fastSettings?: Record<string, string>;
  note: string;
}

const QUERIES: Record<string, BenchQuery> = {
  full_aggregate: {
    sql: `SELECT count() AS c, sum(amount) AS s, avg(amount) AS a, max(user) AS mx FROM ${T}`,
    note: 'scan of every row, one state row per shard',
  },
  top_count: {
    sql: `SELECT user, count() AS c, sum(amount) AS s FROM ${T} GROUP BY user ORDER BY c DESC, user LIMIT 10`,
    fastSettings: { ch_scatter_top_count: 'shard_size' },
    note: '~30k groups spanning shards; general: exact (the default method), fast: shard_size (approximate, opted in)',
  },
  uniq: {
    sql: `SELECT uniq(user) AS u, uniqCombined(user) AS uc FROM ${T}`,
    note: "general: ClickHouse's own uniq/uniqCombined states (the Distributed table's answer); fast: HyperLogLog (approximate)",
  },
  in_list_sharding_key: {
    sql: `SELECT count() AS c, sum(amount) AS s FROM ${T} WHERE id IN (3, 300, 3000, 30000, 300000, 900003)`,
    note: 'pruned to shard 0 on both paths; the final stage runs there too',
  },
};

async function time(f: () => Promise<unknown>): Promise<number> {
  const t0 = performance.now();
  await f();
  return performance.now() - t0;
}

export async function run(opts: { quick: boolean }): Promise<{ table: string; json: Record<string, unknown> }> {
  setMaxListeners(0);
  const rows = opts.quick ? 1_000_000 : 3_000_000;
  const reps = opts.quick ? 7 : 15;
  const cluster = await startCluster(SHARDS, PORT_BASE, 'scatter');
  const json: Record<string, unknown> = {};
  const out: (string | number)[][] = [];
  let topCountTable = '';
  let shards: Awaited<ReturnType<typeof startLocalShards>> | undefined;
  try {
    await Promise.all(
      cluster.urls.map(async (url, i) => {
        await chHttp(
          url,
          'CREATE TABLE default.events (id UInt64, user UInt32, sensor UInt32, amount Float64, day Date, uuser UInt32) ENGINE = MergeTree ORDER BY id',
        );
        // The e2e bench's data: identity placement on id over slots [0,1,2], a skewed user column.
        await chHttp(
          url,
          `INSERT INTO default.events SELECT number AS id, toUInt32(intDiv(u * u, 100000)) AS user, toUInt32(number % 1000) AS sensor, (number % 1000) / 10 AS amount, toDate('2024-01-01') + number % 365 AS day, intHash32(number + 1) % 30000 AS uuser FROM (SELECT number, intHash32(number) % 100000 AS u FROM numbers(${rows})) WHERE number % ${SHARDS} = ${i}`,
        );
      }),
    );
    const head = cluster.urls[0]!;
    await chHttp(head, 'CREATE TABLE default.events_dist AS default.events ENGINE = Distributed(scatter, default, events, id)');
    const topo = parseTopology({
      cluster: 'scatter',
      shards: cluster.urls.map((url) => ({ weight: 1, replicas: [{ url }] })),
      tables: { [T]: { local: 'default.events', shardingKey: { column: 'id', type: 'UInt64', function: 'identity' } } },
      query: { timeoutMs: 60_000, maxRowsToTransfer: 10_000_000 },
    });
    shards = await startLocalShards(topo);
    const states = { fast: createHedgeState(), general: createHedgeState() };
    const scatter = async (path: 'fast' | 'general', q: BenchQuery, extra: Record<string, string> = {}) => {
      const settings = { ch_scatter_path: path, ...(path === 'fast' ? q.fastSettings : {}), ...extra };
      const r = await runQuery(
        { sql: q.sql, settings },
        {
          topo,
          invoker: shards!.invoker,
          planQuery: planQuery as PlanFn,
          planTwoStage,
          hedgeState: states[path],
          queryId: randomUUID(),
          behindApiGateway: false,
        },
      );
      if (r.status !== 200) throw new Error(`${path} ${r.status}: ${JSON.stringify(r.body).slice(0, 400)}`);
      return r.body as QueryResponse;
    };
    const distributed = async (sql: string) => {
      const text = await chHttp(head, `${sql} FORMAT JSON`, { output_format_json_quote_64bit_integers: '1' });
      return JSON.parse(text) as { data: Record<string, unknown>[] };
    };

    for (const [name, q] of Object.entries(QUERIES)) {
      const finalMs: number[] = [];
      const stageOneMs: number[] = [];
      let d = await distributed(q.sql); // warm-up
      let f = await scatter('fast', q);
      const refused = await scatter('general', q).then(
        () => undefined,
        (e: Error) => e.message,
      );
      if (refused) {
        // Over a transfer limit (every group's state must fit one final-stage request): recorded, not timed.
        json[name] = { general_refused: refused.slice(0, 300), note: q.note };
        out.push([name, r2((await time(() => distributed(q.sql))) as number), '-', '-', 'refused', '-', '-', '-', '-', '-', '-', refused.slice(0, 60), '-']);
        continue;
      }
      let g = await scatter('general', q);
      let shipped = await scatter('general', q, SHIP_ALL);
      const orders = [
        ['d', 'f', 'g', 's'],
        ['s', 'g', 'd', 'f'],
        ['f', 's', 'g', 'd'],
        ['g', 'd', 'f', 's'],
      ] as const;
      const ms = await timeInOrders(orders, reps, async (which) => {
        if (which === 'd') d = await distributed(q.sql);
        else if (which === 'f') f = await scatter('fast', q);
        else if (which === 's') shipped = await scatter('general', q, SHIP_ALL);
        else {
          g = await scatter('general', q);
          finalMs.push(g.statistics.finalStage!.elapsedMs);
          stageOneMs.push(g.statistics.finalStage!.startMs);
        }
      });
      const fin = g.statistics.finalStage!;
      const e = {
        distributed_ms: r2(quantile(ms.d, 0.5)),
        fast_ms: r2(quantile(ms.f, 0.5)),
        general_ms: r2(quantile(ms.g, 0.5)),
        fast_ratio: r2(quantile(ms.f, 0.5) / quantile(ms.d, 0.5)),
        general_ratio: r2(quantile(ms.g, 0.5) / quantile(ms.d, 0.5)),
        general_shipped_ms: r2(quantile(ms.s, 0.5)),
        general_shipped_ratio: r2(quantile(ms.s, 0.5) / quantile(ms.d, 0.5)),
        general_kept_rows: fin.kept?.rows ?? 0,
        general_stage_one_ms: r2(quantile(stageOneMs, 0.5)),
        final_stage_ms: r2(quantile(finalMs, 0.5)),
        final_stage_input_rows: fin.inputRows,
        final_stage_request_bytes: fin.requestBytes,
        general_same_as_distributed: normalize(g.data) === normalize(d.data) && normalize(shipped.data) === normalize(d.data),
        fast_same_as_distributed: normalize(f.data) === normalize(d.data),
        fast_approximate: f.approximate ? Object.keys(f.approximate) : [],
        repetitions: reps,
        note: q.note,
      };
      json[name] = e;
      out.push([
        name,
        e.distributed_ms,
        e.fast_ms,
        e.fast_ratio,
        e.general_ms,
        e.general_ratio,
        `${e.general_shipped_ms} (${e.general_shipped_ratio})`,
        e.general_stage_one_ms,
        e.final_stage_ms,
        e.final_stage_input_rows,
        e.final_stage_request_bytes,
        e.general_same_as_distributed ? 'yes' : 'NO',
        e.fast_same_as_distributed ? 'yes' : e.fast_approximate.length ? `approx (${e.fast_approximate.join(', ')})` : 'NO',
      ]);
    }
    topCountTable = await topCountSection({ reps, distributed, scatter, json });
    json.rows = rows;
  } finally {
    await shards?.stop();
    await cluster.stop();
  }
  json.method = `3 x clickhouse-server 18.16 on loopback; Distributed table over HTTP on server 0 vs runQuery in-process, fast and general paths, shard functions behind the local Invoke endpoint; alternating, median of ${reps}`;
  json.target = 'general <= 1.5x Distributed on >= 1M rows';
  return {
    table:
      table(
        [
          'query',
          'Distributed ms',
          'fast ms',
          'fast ratio',
          'general ms',
          'general ratio',
          'general, every shard shipped ms (ratio)',
          'general: stage one done at ms',
          'final stage ms',
          'final input rows',
          'final request bytes',
          'general = Distributed',
          'fast = Distributed',
        ],
        out,
      ) +
      `\n(${rows.toLocaleString('en-US')} rows over 3 shards; medians of ${reps} alternating runs)\n\n` +
      topCountTable,
    json,
  };
}

const TOP_COUNT: Record<string, string> = {
  skewed_user: `SELECT user, count() AS c, sum(amount) AS s FROM ${T} GROUP BY user ORDER BY c DESC, user LIMIT 10`,
  uniform_uuser: `SELECT uuser, count() AS c, sum(amount) AS s FROM ${T} GROUP BY uuser ORDER BY c DESC, uuser LIMIT 10`,
};

/** The exact top count: every group vs TPUT (general path) vs the Distributed table, same run, alternating. */
async function topCountSection(b: {
  reps: number;
  distributed: (sql: string) => Promise<{ data: Record<string, unknown>[] }>;
  scatter: (path: 'fast' | 'general', q: BenchQuery, extra?: Record<string, string>) => Promise<QueryResponse>;
  json: Record<string, unknown>;
}): Promise<string> {
  const out: (string | number)[][] = [];
  for (const [name, sql] of Object.entries(TOP_COUNT)) {
    const q: BenchQuery = { sql, note: '' };
    const every = () => b.scatter('general', q, { ch_scatter_top_count: 'every_group' });
    const tput = () => b.scatter('general', q, { ch_scatter_top_count: 'tput' });
    const exact = () => b.scatter('general', q); // the default: TPUT, or every group when round 1 says the query over the candidates would not pay
    let d = await b.distributed(sql);
    let e = await every();
    let t = await tput();
    let x = await exact();
    const orders = [
      ['d', 'e', 't', 'x'],
      ['x', 't', 'd', 'e'],
      ['e', 'x', 't', 'd'],
      ['t', 'd', 'x', 'e'],
    ] as const;
    const ms = await timeInOrders(orders, b.reps, async (which) => {
      if (which === 'd') d = await b.distributed(sql);
      else if (which === 'e') e = await every();
      else if (which === 't') t = await tput();
      else x = await exact();
    });
    const rounds = t.topCount?.rounds ?? [];
    const r = (n: number) => rounds.find((x) => x.round === n);
    const entry = {
      distributed_ms: r2(quantile(ms.d, 0.5)),
      every_group_ms: r2(quantile(ms.e, 0.5)),
      tput_ms: r2(quantile(ms.t, 0.5)),
      every_group_ratio: r2(quantile(ms.e, 0.5) / quantile(ms.d, 0.5)),
      tput_ratio: r2(quantile(ms.t, 0.5) / quantile(ms.d, 0.5)),
      default_ms: r2(quantile(ms.x, 0.5)),
      default_ratio: r2(quantile(ms.x, 0.5) / quantile(ms.d, 0.5)),
      default_method: x.topCount?.method,
      default_fell_back: x.topCount?.fellBack,
      tput_method: t.topCount?.method,
      tput_fell_back: t.topCount?.fellBack,
      tput_round1: {
        rows: r(1)?.rows,
        bytes: r(1)?.bytes,
        ms: r(1)?.elapsedMs,
        tau: t.topCount?.tau,
        thresholds: t.topCount?.thresholds?.map((x) => x.threshold),
      },
      tput_candidates: t.topCount?.candidates,
      tput_round3: { rows: t.statistics.finalStage?.inputRows, bytes: t.statistics.finalStage?.inputBytes },
      every_group: { rows: e.statistics.finalStage?.inputRows, bytes: e.statistics.finalStage?.inputBytes },
      tput_same_as_distributed: normalize(t.data) === normalize(d.data) && normalize(x.data) === normalize(d.data),
      every_group_same_as_distributed: normalize(e.data) === normalize(d.data),
      repetitions: b.reps,
    };
    b.json[`top_count_${name}`] = entry;
    out.push([
      name,
      entry.distributed_ms,
      `${entry.every_group_ms} (${entry.every_group_ratio}x)`,
      `${entry.tput_ms} (${entry.tput_ratio}x)`,
      `${entry.default_ms} (${entry.default_ratio}x) ${
        !entry.default_fell_back ? 'TPUT' : /same query/.test(entry.default_fell_back) ? 'every group (round 1 remembered)' : 'every group after round 1'
      }`,
      `${r(1)?.rows ?? '-'} / ${r(1)?.bytes ?? '-'}`,
      `${entry.tput_candidates ?? '-'}: ${entry.tput_round3.rows} / ${entry.tput_round3.bytes}`,
      `${entry.every_group.rows} / ${entry.every_group.bytes}`,
      entry.tput_same_as_distributed && entry.every_group_same_as_distributed ? 'yes' : 'NO',
    ]);
  }
  return (
    "Exact top count, general path: every group vs TPUT ('tput': the one-round pre-pass, then the query over the candidates; 'exact', the default: round 1 decides) " +
    "(rows / bytes moved from the shards; round 1 as JSON rows, the query over the candidates and every group as the final stage's input: its rows including those its shard kept, its bytes only those shipped)\n" +
    table(
      [
        'query',
        'Distributed ms',
        'every group ms',
        "TPUT ms ('tput')",
        "default ms ('exact')",
        'TPUT round 1 rows / bytes',
        'candidates: round 2 rows / bytes',
        'every group rows / bytes',
        '= Distributed',
      ],
      out,
    )
  );
}
