// The server time hedge losers consume, with the loser's cancel off and on, in one run (part of the
// hedging section). Two Debian clickhouse-server 18.16 instances are the two replicas of one shard
// and hold different rows of one table, so a query takes ~SLOW_ROWS x ROW_SLEEP_S on replica 0 and
// one row's time on replica 1: each query whose primary is replica 0 is hedged to replica 1, which
// wins, and replica 0 runs the loser. The real shard handler and HTTP adapter serve both; the
// coordinator side is callShard with hedging. `off` is an invoker without `cancel` (the loser runs
// until it finishes or its deadline), `on` the same invoker with it; queries alternate between them.
// The losers' server time is query_duration_ms in replica 0's system.query_log (log_queries=1).
import { Logger } from '@aws-lambda-powertools/logger';
import { createShardHandler, envShardDeps } from '../functions/shard/handler.js';
import type { ShardRequest, ShardResponse } from '../shared/core/protocol/shard-wire.js';
import { callShard, type ShardOutcome } from '../shared/core/scatter/call-shard.js';
import { createLimiter } from '../shared/core/scatter/fanout.js';
import { createHedgeState, type HedgeState } from '../shared/core/scatter/hedge.js';
import type { ShardInvoker } from '../shared/core/scatter/invoker.js';
import { chHttp, startCluster } from './_ch-cluster.js';
import { quantile, r2, table } from './_stats.js';

const PORT_BASE = 20330;
const ROW_SLEEP_S = 0.02;
const SLOW_ROWS = 50; // ~1 s a query on replica 0
const SQL = `SELECT count() AS c FROM default.slow WHERE sleepEachRow(${ROW_SLEEP_S}) = 0`;

interface Mode {
  name: 'off' | 'on';
  invoker: ShardInvoker;
  state: HedgeState;
  hedged: number;
  loserOnSlow: number;
  wall: number[];
}

export async function loserServerTime(opts: { quick: boolean }): Promise<{ table: string; json: Record<string, unknown> }> {
  const queries = opts.quick ? 20 : 40;
  const cluster = await startCluster(2, PORT_BASE, 'scatter');
  try {
    for (const [i, url] of cluster.urls.entries()) {
      await chHttp(url, 'CREATE TABLE default.slow (n UInt64) ENGINE = MergeTree() ORDER BY n SETTINGS index_granularity = 1');
      await chHttp(url, `INSERT INTO default.slow SELECT number FROM system.numbers LIMIT ${i === 0 ? SLOW_ROWS : 1}`);
    }
    const logger = new Logger({ serviceName: 'bench', logLevel: 'SILENT' });
    const fn = createShardHandler(envShardDeps({ CH_SCATTER_SHARD: JSON.stringify({ shard: 0, replicas: cluster.urls.map((url) => ({ url })) }) }, logger));
    const send = (p: unknown) => fn(p) as Promise<ShardResponse>;
    const modes: Mode[] = (['off', 'on'] as const).map((name) => ({
      name,
      invoker: name === 'on' ? { invoke: (_s, p) => send(p), cancel: (_s, p) => send(p) } : { invoke: (_s, p) => send(p) },
      state: createHedgeState({ coldStartDelayMs: 50 }),
      hedged: 0,
      loserOnSlow: 0,
      wall: [],
    }));
    const one = async (m: Mode, i: number): Promise<ShardOutcome> => {
      const queryId = `lt-${m.name}-${i}`;
      const deadlineAt = Date.now() + 5000;
      const request = (replica: number, attempt: ShardRequest['attempt']): ShardRequest => ({
        type: 'query',
        queryId,
        shard: 0,
        replica,
        sql: SQL,
        deadline: deadlineAt,
        settings: { max_block_size: 1, log_queries: 1 },
        external: [],
        attempt,
      });
      const t0 = performance.now();
      const o = await callShard({
        shard: 0,
        replicaCount: 2,
        request,
        invoker: m.invoker,
        limiter: createLimiter(4),
        deadlineAt,
        signal: new AbortController().signal,
        now: Date.now,
        hedge: { enabled: true, afterQuantile: 0.95, maxExtraPercent: 100 },
        state: m.state,
      });
      m.wall.push(performance.now() - t0);
      if (o.hedged) m.hedged++;
      if (o.replica === 1 && o.attempts.some((a) => a.replica === 0)) m.loserOnSlow++;
      return o;
    };
    for (let i = 0; i < queries; i++) for (const m of modes) await one(m, i);
    // Every loser ends (killed, or done: ~1 s), then the log is flushed and read.
    const slow = cluster.urls[0]!;
    for (let t = 0; t < 100; t++) {
      const n = Number((await chHttp(slow, "SELECT count() FROM system.processes WHERE query_id LIKE 'lt-%'")).trim());
      if (n === 0) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    await chHttp(slow, 'SYSTEM FLUSH LOGS');
    const rows: (string | number)[][] = [];
    const json: Record<string, unknown> = { queries_per_mode: queries };
    for (const m of modes) {
      const got = (
        await chHttp(
          slow,
          `SELECT count(), sum(query_duration_ms), max(query_duration_ms) FROM system.query_log WHERE type IN (2, 4) AND query_id LIKE 'lt-${m.name}-%' FORMAT TabSeparated`,
        )
      )
        .trim()
        .split('\t')
        .map(Number);
      const [losers, totalMs, maxMs] = got as [number, number, number];
      const mean = losers > 0 ? totalMs / losers : 0;
      const p50 = quantile(m.wall, 0.5);
      json[m.name] = {
        hedged: m.hedged,
        losers_on_slow_replica: m.loserOnSlow,
        loser_queries_logged: losers,
        loser_server_ms_total: totalMs,
        loser_server_ms_mean: r2(mean),
        loser_server_ms_max: maxMs,
        answer_p50_ms: r2(p50),
      };
      rows.push([m.name, queries, m.hedged, losers, totalMs, r2(mean), maxMs, r2(p50)]);
    }
    json.method = `2 x clickhouse-server 18.16 as the replicas of one shard; replica 0 holds ${SLOW_ROWS} rows at ${ROW_SLEEP_S * 1000} ms each (sleepEachRow, one row a block), replica 1 one; callShard with hedging over the real shard handler; off = invoker without cancel, on = with; modes interleaved; loser server time = query_duration_ms in replica 0's query_log`;
    return {
      table:
        table(['cancel', 'queries', 'hedged', 'loser queries', 'loser server ms (sum)', 'mean', 'max', 'answer p50 ms'], rows) +
        `\n(losers' server time on the slow replica; a full loser run there is ~${(SLOW_ROWS * ROW_SLEEP_S * 1000).toFixed(0)} ms)`,
      json,
    };
  } finally {
    await cluster.stop();
  }
}
