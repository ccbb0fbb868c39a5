// Shapes whose stage-one answers are larger than one Lambda invoke, on the general path through the
// exchange, against ClickHouse's own Distributed table on the same three Debian clickhouse-server
// 18.16 servers and data, in the same run (docs/benchmarks.md#the-exchange-1m-groups-and-a-1m-row-select):
//   - group_1m: a GROUP BY over 1M distinct keys (every key on every shard), ORDER BY c DESC LIMIT 10;
//   - select_1m: a plain SELECT whose 1M rows all reach the final stage (ORDER BY ... LIMIT 5 OFFSET 999995);
//   - group_100k: a GROUP BY small enough to travel inline, run inline and through the exchange
//     (exchangeInlineBytes = 0), which prices the exchange itself.
// The shard functions behind the local Invoke endpoint with the stack's s3rver as the bucket
// (startLocalShards), the coordinator's runQuery in this process. Alternating order, medians.
// Also the codec on one shard's real stage-one answer: its bytes raw, as base64, as zstd level 1,
// and the time to compress and decompress it. And each query's peak memory per function, in fresh
// processes of their own: the coordinator (_coordinator-child.ts) and every shard function (the
// stack's host processes), after one small warm-up query through the exchange (modules, codec
// loaded), each process's peak resident set during the one measured query (VmHWM, _peak-memory.ts).
import { randomUUID } from 'node:crypto';
import { setMaxListeners } from 'node:events';
import { parseTopology } from '../shared/core/config/load.js';
import type { Topology } from '../shared/core/config/schema.js';
import { planQuery } from '../shared/core/plan/index.js';
import { planTwoStage } from '../shared/core/plan/two-stage/plan.js';
import { createHedgeState } from '../shared/core/scatter/hedge.js';
import { runQuery, type PlanFn, type QueryResponse } from '../shared/core/scatter/run-query.js';
import { zstdCodec } from '../shared/adapters/aws/zstd-codec.js';
import { startLocalShards } from '../local/stack.js';
import { chHttp, startCluster } from './_ch-cluster.js';
import { startChild } from './_fork.js';
import { peakMb, resetPeak } from './_peak-memory.js';
import { quantile, r2, table, timeInOrders } from './_stats.js';
import { normalize } from './_compare.js';

const PORT_BASE = 20480;
const SHARDS = 3;
const T = 'default.xev_dist';

const QUERIES: Record<string, { sql: string; note: string }> = {
  group_1m: {
    sql: `SELECT k, count() AS c, sum(v) AS s FROM ${T} GROUP BY k ORDER BY c DESC, k LIMIT 10`,
    note: '1M groups, each on every shard: every state crosses to the final stage',
  },
  select_1m: {
    sql: `SELECT id, v FROM ${T} WHERE id < 1000000 ORDER BY v, id LIMIT 5 OFFSET 999995`,
    note: '1M rows reach the final stage (the LIMIT pushed down keeps them all)',
  },
  group_100k: {
    sql: `SELECT k % 100000 AS g, count() AS c, sum(v) AS s FROM ${T} GROUP BY g ORDER BY c DESC, g LIMIT 10`,
    note: '100k groups: inline by default; also forced through the exchange',
  },
};

export async function run(opts: { quick: boolean }): Promise<{ table: string; json: Record<string, unknown> }> {
  setMaxListeners(0);
  const rows = opts.quick ? 1_000_000 : 3_000_000;
  const reps = opts.quick ? 3 : 5;
  const cluster = await startCluster(SHARDS, PORT_BASE, 'scatter');
  const json: Record<string, unknown> = {};
  const out: (string | number)[][] = [];
  let memoryTable = '';
  let shards: Awaited<ReturnType<typeof startLocalShards>> | undefined;
  try {
    await Promise.all(
      cluster.urls.map(async (url, i) => {
        await chHttp(url, 'CREATE TABLE default.xev (id UInt64, k UInt32, v UInt64) ENGINE = MergeTree ORDER BY id');
        await chHttp(
          url,
          `INSERT INTO default.xev SELECT number, toUInt32(number % 1000000), number * 7 FROM numbers(${rows}) WHERE number % ${SHARDS} = ${i}`,
        );
      }),
    );
    const head = cluster.urls[0]!;
    await chHttp(head, 'CREATE TABLE default.xev_dist AS default.xev ENGINE = Distributed(scatter, default, xev, id)');
    const rawConfig = (query: Record<string, unknown>) => ({
      cluster: 'scatter',
      shards: cluster.urls.map((url) => ({ weight: 1, replicas: [{ url }] })),
      tables: { [T]: { local: 'default.xev', shardingKey: { column: 'id', type: 'UInt64', function: 'identity' } } },
      query: { timeoutMs: 60_000, maxRowsToTransfer: 0, maxFinalStageBytes: 0, ...query },
    });
    const config = (query: Record<string, unknown>): Topology => parseTopology(rawConfig(query));
    const topo = config({});
    const alwaysExchange = config({ exchangeInlineBytes: 0 });
    shards = await startLocalShards(topo);
    const hedge = createHedgeState();
    const general = async (sql: string, t: Topology) => {
      const r = await runQuery(
        { sql, settings: { ch_scatter_path: 'general' } },
        { topo: t, invoker: shards!.invoker, planQuery: planQuery as PlanFn, planTwoStage, hedgeState: hedge, queryId: randomUUID(), behindApiGateway: false },
      );
      if (r.status !== 200) throw new Error(`general ${r.status}: ${JSON.stringify(r.body).slice(0, 400)}`);
      return r.body as QueryResponse;
    };
    const distributed = async (sql: string) => {
      const text = await chHttp(head, `${sql} FORMAT JSON`, { output_format_json_quote_64bit_integers: '1' });
      return JSON.parse(text) as { data: Record<string, unknown>[] };
    };

    for (const [name, q] of Object.entries(QUERIES)) {
      let d = await distributed(q.sql);
      let g = await general(q.sql, topo);
      let x = await general(q.sql, alwaysExchange);
      const withForced = name === 'group_100k';
      const orders = withForced
        ? ([
            ['d', 'g', 'x'],
            ['x', 'd', 'g'],
            ['g', 'x', 'd'],
          ] as const)
        : ([
            ['d', 'g'],
            ['g', 'd'],
          ] as const);
      const finalMs: number[] = [];
      const ms = await timeInOrders(orders as readonly (readonly ('d' | 'g' | 'x')[])[], reps, async (which) => {
        if (which === 'd') d = await distributed(q.sql);
        else if (which === 'x') x = await general(q.sql, alwaysExchange);
        else {
          g = await general(q.sql, topo);
          finalMs.push(g.statistics.finalStage!.elapsedMs);
        }
      });
      const fin = g.statistics.finalStage!;
      const e: Record<string, unknown> = {
        distributed_ms: r2(quantile(ms.d!, 0.5)),
        general_ms: r2(quantile(ms.g!, 0.5)),
        general_ratio: r2(quantile(ms.g!, 0.5) / quantile(ms.d!, 0.5)),
        final_stage_ms: r2(quantile(finalMs, 0.5)),
        final_stage_input_rows: fin.inputRows,
        final_stage_input_bytes: fin.inputBytes,
        exchanged_bytes: fin.exchangedBytes ?? 0,
        final_stage_request_bytes: fin.requestBytes,
        kept_rows: fin.kept?.rows ?? 0,
        same_as_distributed: normalize(g.data) === normalize(d.data) && normalize(x.data) === normalize(d.data),
        note: q.note,
      };
      if (withForced) {
        e.forced_exchange_ms = r2(quantile(ms.x!, 0.5));
        e.forced_exchange_ratio = r2(quantile(ms.x!, 0.5) / quantile(ms.d!, 0.5));
      }
      json[name] = e;
      out.push([
        name,
        e.distributed_ms as number,
        e.general_ms as number,
        e.general_ratio as number,
        withForced ? `${e.forced_exchange_ms} (${e.forced_exchange_ratio})` : '-',
        e.final_stage_ms as number,
        fin.inputRows,
        fin.inputBytes,
        fin.exchangedBytes ?? 0,
        fin.requestBytes,
        e.same_as_distributed ? 'yes' : 'NO',
      ]);
    }
    json.codec = await codecOnStageOne(cluster.urls[1]!, reps);
    json.rows = rows;
    await shards.stop();
    shards = undefined;
    const memory: (string | number)[][] = [];
    for (const name of Object.keys(QUERIES)) {
      const m = await peakMemoryOf(QUERIES[name]!.sql, rawConfig({}));
      (json[name] as Record<string, unknown>).memory = m;
      memory.push([
        name,
        m.answer_bytes,
        `${m.coordinator.peak_mb} (${m.coordinator.before_mb})`,
        `${m.final_stage.peak_mb} (${m.final_stage.before_mb})`,
        `${m.stage_one_max.peak_mb} (${m.stage_one_max.before_mb})`,
      ]);
    }
    memoryTable = table(
      ['query', 'final input bytes', 'coordinator peak MB (before)', 'final-stage function peak MB (before)', 'largest other shard function peak MB (before)'],
      memory,
    );
  } finally {
    await shards?.stop();
    await cluster.stop();
  }
  json.method = `3 x clickhouse-server 18.16 on loopback; Distributed table over HTTP on server 0 vs runQuery (general path) in-process, shard functions behind the local Invoke endpoint, the exchange on the stack's s3rver; alternating, median of ${reps}`;
  json.target = 'the 1M-group GROUP BY and the 1M-row SELECT within 1.5x of the Distributed table';
  const c = json.codec as Record<string, number>;
  return {
    table:
      table(
        [
          'query',
          'Distributed ms',
          'general ms',
          'ratio',
          'through the exchange always ms (ratio)',
          'final stage ms',
          'final input rows',
          'final input bytes',
          'exchanged bytes',
          'final request bytes',
          '= Distributed',
        ],
        out,
      ) +
      `\n(${rows.toLocaleString('en-US')} rows over 3 shards; medians of ${reps} alternating runs)\n\n` +
      `one shard's stage-one answer of group_1m: ${c.raw_bytes} bytes, ${c.base64_bytes} as base64, ${c.zstd_bytes} as zstd level 1 ` +
      `(${c.ratio}x smaller); compress ${c.compress_ms} ms, decompress ${c.decompress_ms} ms (medians of ${reps})\n\n` +
      `peak memory per function, each query once in fresh processes after a warm-up (VmHWM; resident MB before the query in parentheses):\n${memoryTable}\n`,
    json,
  };
}

/** zstd level 1 on one shard's real stage-one answer (the 1M-group GROUP BY's partials, as the shard sends them). */
async function codecOnStageOne(url: string, reps: number): Promise<Record<string, number>> {
  const body = Buffer.from(
    await chHttp(url, 'SELECT k AS _k0, count() AS _a0, sum(v) AS _a1 FROM default.xev GROUP BY k FORMAT TabSeparatedWithNamesAndTypes'),
    'latin1',
  );
  const codec = await zstdCodec();
  const c = codec.compress(body);
  const comp: number[] = [];
  const dec: number[] = [];
  for (let i = 0; i < reps; i++) {
    let t0 = performance.now();
    codec.compress(body);
    comp.push(performance.now() - t0);
    t0 = performance.now();
    codec.decompress(c);
    dec.push(performance.now() - t0);
  }
  return {
    raw_bytes: body.length,
    base64_bytes: 4 * Math.ceil(body.length / 3),
    zstd_bytes: c.length,
    ratio: r2(body.length / c.length),
    compress_ms: r2(quantile(comp, 0.5)),
    decompress_ms: r2(quantile(dec, 0.5)),
  };
}

interface ProcessMemory {
  peak_mb: number;
  before_mb: number;
}

/**
 * One run of `sql` with every function in a fresh process of its own: the coordinator
 * (_coordinator-child.ts) and each shard function (the stack's host processes, not in-process),
 * warmed by a small query through the exchange, then each process's peak resident set during `sql`.
 */
async function peakMemoryOf(
  sql: string,
  config: Record<string, unknown>,
): Promise<{ answer_bytes: number; coordinator: ProcessMemory; final_stage: ProcessMemory & { shard: number }; stage_one_max: ProcessMemory }> {
  const shards = await startLocalShards(parseTopology(config), { inProcessHttp: false });
  const n = (config.shards as unknown[]).length;
  const coordinator = await startChild<{ pid: number }>('_coordinator-child', { shards: n, invokeUrl: shards.invokeUrl, exchange: shards.exchange?.env });
  let next = 1;
  const ask = (q: string, topo: Record<string, unknown>) =>
    new Promise<QueryResponse>((resolve, reject) => {
      const id = next++;
      const on = (m: { id: number; status?: number; body?: unknown; error?: string }) => {
        if (m.id !== id) return;
        coordinator.proc.off('message', on);
        if (m.error !== undefined || m.status !== 200) reject(new Error(`coordinator: ${m.error ?? `${m.status} ${JSON.stringify(m.body).slice(0, 300)}`}`));
        else resolve(m.body as QueryResponse);
      };
      coordinator.proc.on('message', on);
      coordinator.proc.send({ id, sql: q, topo });
    });
  try {
    // Loads what the measured query runs (planner, invoker, S3 adapter, codec, the final stage's path).
    await ask(`SELECT k, count() AS c FROM ${T} WHERE id < 30000 GROUP BY k ORDER BY c DESC, k LIMIT 1`, {
      ...config,
      query: { ...(config.query as object), exchangeInlineBytes: 0 },
    });
    const pids = shards.hostPids().map((r) => r[0]!);
    const before = { coordinator: resetPeak(coordinator.info.pid), hosts: pids.map(resetPeak) };
    const r = await ask(sql, config);
    const peaks = { coordinator: peakMb(coordinator.info.pid), hosts: pids.map(peakMb) };
    const fin = r.statistics.finalStage!;
    const others = pids.map((_, i) => i).filter((i) => i !== fin.shard);
    const worst = others.reduce((a, b) => (peaks.hosts[b]! > peaks.hosts[a]! ? b : a), others[0]!);
    return {
      answer_bytes: fin.inputBytes,
      coordinator: { peak_mb: peaks.coordinator, before_mb: before.coordinator },
      final_stage: { shard: fin.shard, peak_mb: peaks.hosts[fin.shard]!, before_mb: before.hosts[fin.shard]! },
      stage_one_max: { peak_mb: peaks.hosts[worst]!, before_mb: before.hosts[worst]! },
    };
  } finally {
    await coordinator.stop();
    await shards.stop();
  }
}
