// What a query costs in AWS (docs/cost.md), from durations measured on the local stack:
//   - 4 shards, real: four Debian clickhouse-server 18.16 instances, each one shard of default.events /
//     default.users (bench/_ch-cluster.ts loadEvents); the coordinator is the Lambda's own handler
//     (createCoordinatorHandler, its default invoker, Powertools at Lambda's defaults), called in THIS
//     process with an API Gateway HTTP API event; the shard functions are the local stack's in a child
//     process (bench/cost/_shards-child.ts), every invocation timed there (hedges, retries, TPUT
//     pre-passes, GLOBAL subqueries and final stages alike: whatever reaches a shard function).
//   - 64 and 1,024 shards (the latter through the aggregation tree, sub-coordinators being the same
//     handler invoked through the Invoke endpoint): the same coordinator and shard functions, shard i
//     on server i % 4, so each shard holds a copy of a 4-shard run's shard. A request one server has
//     already run with the same SQL, settings and shipped data is answered with that real answer after
//     that real execution's duration (one real execution per distinct request and server; stage-one
//     keeps and their sessions always run): the coordinator merges real partials of N shards, and each
//     shard invocation is billed what a real engine took for that work, without 1,024 engines on 2 cores.
// Each query is billed per bench/cost/bill.ts with the prices of bench/cost/prices.ts; per query and
// shard count the run with the median cost is shown. Also: the break-even rate against one always-on
// node, the CPU a Distributed table's initiator spends on the same queries (18.16 system.query_log,
// prefer_localhost_replica = 0, so the initiator only merges), log bytes per query, and the memory
// sizes that minimize cost x latency (bench/cost/power.ts).
import { randomUUID } from 'node:crypto';
import { setMaxListeners } from 'node:events';
import type { IncomingMessage } from 'node:http';
import { loadavg } from 'node:os';
import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { deriveSizing } from '../cdk/sizing.js';
import { parseTopology } from '../shared/core/config/load.js';
import type { QueryResponse } from '../shared/core/scatter/run-query.js';
import { createCoordinatorHandler, createTools } from '../functions/coordinator/handler.js';
import { loadDefaultDeps } from '../functions/coordinator/deps.js';
import { lambdaContext } from '../local/api-server.js';
import { toHttpApiEvent } from '../local/http-api-event.js';
import { startInvokeServer } from '../local/invoke-server.js';
import { chHttp, loadEvents, startCluster } from './_ch-cluster.js';
import { normalize } from './_compare.js';
import { startChild } from './_fork.js';
import { cpuMsSince, quantile, r2, r3, table } from './_stats.js';
import { billQuery, breakEvenQps, type Invocation, type QueryUsage } from './cost/bill.js';
import { platformLogBytes, shardMetricsBytes, swallowOutput } from './cost/logs.js';
import { MEMORY_GRID_MB, tune, type MeasuredQuery } from './cost/power.js';
import { loadPrices } from './cost/prices.js';
import type { ShardInvocation } from './cost/_shards-child.js';

const PORT_BASE = 20140;
const SERVERS = 4;
const TREE_ABOVE = 64;
const T = 'default.events_dist';
const QUERIES: Record<string, string> = {
  full_aggregate: `SELECT count() AS c, sum(amount) AS s, avg(amount) AS a, max(user) AS mx FROM ${T}`,
  top_count: `SELECT user, count() AS c, sum(amount) AS s FROM ${T} GROUP BY user ORDER BY c DESC, user LIMIT 10`,
  pruned_in: `SELECT count() AS c, sum(amount) AS s FROM ${T} WHERE id IN (4, 400, 4000, 40000, 400000, 900004)`,
  global_in: `SELECT count() AS c, sum(amount) AS s FROM ${T} WHERE user GLOBAL IN (SELECT user FROM default.users_dist WHERE country = 'NL')`,
  // Two general-path queries: ClickHouse's uniq states (about 30k users' worth per shard) and a
  // small one (365 groups per shard), since the final stage's input is one invocation's payload.
  general_uniq: `SELECT uniq(user) AS u FROM ${T}`,
  general_totals: `SELECT day, count() AS c, sum(amount) AS s FROM ${T} GROUP BY day WITH TOTALS ORDER BY day LIMIT 5`,
  // The approximate top count opted into: where the exact one's final stage outgrows an invocation.
  top_count_shard_size: `SELECT user, count() AS c, sum(amount) AS s FROM ${T} GROUP BY user ORDER BY c DESC, user LIMIT 10 SETTINGS ch_scatter_top_count = 'shard_size'`,
};
const ms3 = (x: number) => Math.round(x * 1000) / 1000;
const perM = (usd: number) => r3(usd * 1e6);

/** An answer other than 200: what it was, for the table (a refusal is a result too). */
interface Refused {
  refused: { status: number; code: string; message: string };
}

interface Run {
  wallMs: number;
  cpuMs: number;
  subs: number[];
  shards: ShardInvocation[];
  shardCpuMs: number;
  coordinatorLogBytes: number;
  shardLogBytes: number;
  frontDoorBytes: number;
  body: QueryResponse;
}

function apiEvent(sql: string) {
  const body = Buffer.from(JSON.stringify({ sql }));
  const req = {
    method: 'POST',
    httpVersion: '1.1',
    headers: { host: 'bench.execute-api.us-east-1.amazonaws.com', 'content-type': 'application/json', 'content-length': String(body.length) },
    socket: { remoteAddress: '127.0.0.1' },
  } as unknown as IncomingMessage;
  return { body, event: toHttpApiEvent(req, new URL('https://bench/query'), body, { apiId: 'bench', requestId: randomUUID() }) };
}

export async function run(opts: { quick: boolean }): Promise<{ table: string; json: Record<string, unknown> }> {
  setMaxListeners(0);
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  // Lambda's defaults for the coordinator: INFO logs, EMF metrics on (the local stack turns them off).
  process.env.POWERTOOLS_METRICS_DISABLED = 'false';
  delete process.env.POWERTOOLS_LOG_LEVEL;
  const { prices, source } = loadPrices();
  const rows = opts.quick ? 200_000 : 4_000_000;
  /** CH_BENCH_SIZES=4,1024 (a comma list) measures only those shard counts. */
  const sizes = process.env.CH_BENCH_SIZES?.split(',').map(Number) ?? (opts.quick ? [4, 64] : [4, 64, 1024]);
  const repsOf = (n: number) => (opts.quick ? 2 : n > 64 ? 5 : 9);
  const warmUps = opts.quick ? 1 : 2;
  const load0 = loadavg()[0]!;
  const shardEmfBytes = await shardMetricsBytes();
  const cluster = await startCluster(SERVERS, PORT_BASE, 'scatter');
  // Everything the functions print is log volume: swallowed and counted for the whole run (a
  // sub-coordinator abandoned at the deadline may still log after its query has answered).
  const output = swallowOutput();
  const json: Record<string, unknown> = {};
  const costRows: (string | number)[][] = [];
  const tuneRows: (string | number)[][] = [];
  const initiator: Record<string, { cpu_ms: number; duration_ms: number; same_answer: boolean; ch_scatter_coordinator_cpu_ms: number }> = {};
  const shardCpuPerInvocation: Record<string, number> = {};
  try {
    await loadEvents(cluster, rows, { users: true });
    const head = cluster.urls[0]!;
    const distributed: Record<string, { data: Record<string, unknown>[]; cpuMs: number; durationMs: number }> = {};
    // ch-scatter's own settings mean nothing to the Distributed table: it gets the query without them.
    for (const [name, sql] of Object.entries(QUERIES)) distributed[name] = await initiatorCost(head, name, sql.replace(/ SETTINGS .*$/, ''), repsOf(4));

    for (const n of sizes) {
      const raw = {
        cluster: 'scatter',
        shards: Array.from({ length: n }, (_, i) => ({ weight: 1, replicas: [{ url: cluster.urls[i % SERVERS]! }] })),
        tables: {
          [T]: { local: 'default.events', shardingKey: { column: 'id', type: 'UInt64', function: 'identity' } },
          'default.users_dist': { local: 'default.users', shardingKey: { column: 'user', type: 'UInt32', function: 'identity' } },
        },
        // A 20 s deadline: the 1,024-shard runs share 2 cores with everything else here and must not be
        // cut; memory sizing does not depend on it above 2 s (cdk/sizing.ts).
        query: { timeoutMs: 20_000, treeFanoutAbove: TREE_ABOVE },
      };
      const topo = parseTopology(raw);
      const sizing = deriveSizing(topo.query, n);
      const tools = createTools();
      let handler: ((e: unknown, c: unknown) => Promise<unknown>) | undefined;
      const subs: number[] = [];
      const self = await startInvokeServer({
        port: 0,
        functions: {
          'ch-scatter-coordinator': async (payload) => {
            const t0 = performance.now();
            const r = await handler!(payload, lambdaContext(sizing.coordinatorTimeoutS * 1000));
            subs.push(ms3(performance.now() - t0));
            return r;
          },
        },
      });
      const child = await startChild<{ url: string }>(
        'cost/_shards-child',
        { topo: raw, servers: SERVERS, replay: n > SERVERS, coordinatorUrl: self.url },
        120_000,
      );
      const report = () =>
        new Promise<{ invocations: ShardInvocation[]; cpuMs: number; logBytes: number }>((resolve) => {
          child.proc.once('message', (m: { report: { invocations: ShardInvocation[]; cpuMs: number; logBytes: number } }) => resolve(m.report));
          child.proc.send({ report: true });
        });
      try {
        const env: NodeJS.ProcessEnv = {
          ...process.env,
          CH_SCATTER_TOPOLOGY: JSON.stringify(topo),
          CH_SCATTER_LAMBDA_ENDPOINT: child.info.url,
          CH_SCATTER_SELF_FUNCTION: 'ch-scatter-coordinator',
          CH_SCATTER_INVOKER: 'http',
        };
        delete env.CH_SCATTER_SHARD_FUNCTIONS;
        handler = createCoordinatorHandler(() => loadDefaultDeps(env, tools.tracer), tools) as unknown as typeof handler;
        const once = async (sql: string, warmUp = false): Promise<Run | Refused> => {
          await report();
          subs.length = 0;
          const { body, event } = apiEvent(sql);
          const c0 = process.cpuUsage();
          const t0 = performance.now();
          const b0 = output.bytes();
          const result = (await handler!(event, lambdaContext(sizing.coordinatorTimeoutS * 1000))) as APIGatewayProxyStructuredResultV2;
          const bytes = output.bytes() - b0;
          const wallMs = ms3(performance.now() - t0);
          const cpuMs = cpuMsSince(c0);
          const rep = await report();
          if (result.statusCode !== 200) {
            const err = (JSON.parse(String(result.body)) as { error?: { code?: string; message?: string } }).error;
            return { refused: { status: result.statusCode!, code: err?.code ?? '?', message: String(err?.message).slice(0, 300) } };
          }
          const answer = JSON.parse(String(result.body)) as QueryResponse;
          if (answer.partial && !warmUp) throw new Error(`cost bench: ${n} shards: a partial answer (${JSON.stringify(answer.shards.missing).slice(0, 300)})`);
          return {
            wallMs,
            cpuMs,
            subs: [...subs],
            shards: rep.invocations.map((x) => ({ ...x, ms: ms3(x.ms) })),
            shardCpuMs: rep.cpuMs,
            coordinatorLogBytes: bytes,
            shardLogBytes: rep.logBytes,
            frontDoorBytes: body.length + Buffer.byteLength(String(result.body)),
            body: answer,
          };
        };
        const usageOf = (r: Run): QueryUsage => {
          const coordinator: Invocation[] = [r.wallMs, ...r.subs].map((ms) => ({ ms, memoryMb: sizing.coordinatorMemoryMb }));
          const shards: Invocation[] = r.shards.map((x) => ({ ms: x.ms, memoryMb: sizing.shardMemoryMb }));
          const logBytes =
            r.coordinatorLogBytes +
            r.shardLogBytes +
            shards.length * (shardEmfBytes + platformLogBytes(sizing.shardMemoryMb)) +
            coordinator.length * platformLogBytes(sizing.coordinatorMemoryMb);
          return { coordinator, shards, frontDoor: 'http-api', frontDoorBytes: r.frontDoorBytes, s3Puts: 0, s3Gets: 0, logBytes };
        };
        const names = Object.keys(QUERIES);
        const runs: Record<string, (Run | Refused)[]> = Object.fromEntries(names.map((q) => [q, []]));
        for (const q of names) for (let i = 0; i < warmUps; i++) await once(QUERIES[q]!, true); // warm-up (and, scaled, the one real execution)
        for (let i = 0; i < repsOf(n); i++)
          for (const q of [...names.slice(i % names.length), ...names.slice(0, i % names.length)]) runs[q]!.push(await once(QUERIES[q]!));

        const measured: MeasuredQuery[] = [];
        const perQuery: Record<string, unknown> = {};
        for (const q of names) {
          const refused = runs[q]!.find((r): r is Refused => 'refused' in r);
          if (refused) {
            perQuery[q] = refused;
            costRows.push([n, q, `${refused.refused.status} ${refused.refused.code}`, ...Array(13).fill('-')]);
            continue;
          }
          const done = runs[q] as Run[];
          const billed = done.map((r) => ({ r, u: usageOf(r), b: billQuery(usageOf(r), prices) }));
          billed.sort((a, b) => a.b.totalUsd - b.b.totalUsd);
          const { r, u, b } = billed[Math.floor(billed.length / 2)]!;
          if (n === SERVERS) {
            shardCpuPerInvocation[q] = r.shardCpuMs / Math.max(1, r.shards.length);
            const d = distributed[q]!;
            initiator[q] = {
              cpu_ms: d.cpuMs,
              duration_ms: d.durationMs,
              same_answer: normalize(d.data) === normalize(r.body.data),
              ch_scatter_coordinator_cpu_ms: r2(
                quantile(
                  done.map((x) => x.cpuMs),
                  0.5,
                ),
              ),
            };
          }
          const fnUrl = billQuery({ ...u, frontDoor: 'function-url' }, prices);
          const perShard = new Map<number, number>();
          for (const x of r.shards) perShard.set(x.shard, (perShard.get(x.shard) ?? 0) + 1);
          const walls = [r.wallMs, ...r.subs];
          const wallSum = walls.reduce((a, x) => a + x, 0);
          measured.push({
            // The coordinator's CPU (root and sub-coordinators share this process) split by wall time.
            coordinator: walls.map((ms) => ({ ms, cpuMs: (r.cpuMs * ms) / wallSum })),
            shards: r.shards.map((x) => ({ ms: x.ms, cpuMs: Math.min(x.ms, shardCpuPerInvocation[q] ?? 0) })),
            shardRounds: Math.max(1, ...perShard.values()),
            rest: { frontDoor: 'http-api', frontDoorBytes: u.frontDoorBytes, s3Puts: 0, s3Gets: 0, logBytes: u.logBytes },
          });
          const e = {
            path: r.body.path,
            coordinator_ms: r.wallMs,
            coordinator_cpu_ms: r2(r.cpuMs),
            sub_coordinators: r.subs.length,
            shard_invocations: r.shards.length,
            shard_invocations_by_kind: countBy(r.shards.map((x) => `${x.kind}/${x.attempt}`)),
            replayed_invocations: r.shards.filter((x) => x.replayed).length,
            shard_ms_p50: r2(
              quantile(
                r.shards.map((x) => x.ms),
                0.5,
              ),
            ),
            log_bytes: u.logBytes,
            usd_per_million: {
              coordinator: perM(b.coordinatorUsd),
              shards: perM(b.shardsUsd),
              requests: perM(b.requestsUsd),
              front_door: perM(b.frontDoorUsd),
              s3: perM(b.s3Usd),
              logs: perM(b.logsUsd),
              total: perM(b.totalUsd),
              total_function_url: perM(fnUrl.totalUsd),
            },
            break_even_qps: r3(breakEvenQps(b.totalUsd, prices)),
            // Everything the figure is computed from, so it can be recomputed.
            inputs: {
              coordinator_mb: sizing.coordinatorMemoryMb,
              shard_mb: sizing.shardMemoryMb,
              coordinator_ms: u.coordinator.map((x) => x.ms),
              shard_ms: u.shards.map((x) => x.ms),
              front_door_bytes: u.frontDoorBytes,
              log_bytes: u.logBytes,
            },
            runs: done.length,
          };
          perQuery[q] = e;
          costRows.push([
            n,
            q,
            e.path ?? '-',
            e.coordinator_ms,
            e.sub_coordinators,
            e.shard_invocations,
            e.shard_ms_p50,
            e.usd_per_million.coordinator,
            e.usd_per_million.shards,
            e.usd_per_million.requests,
            e.usd_per_million.front_door,
            e.usd_per_million.logs,
            e.usd_per_million.total,
            e.usd_per_million.total_function_url,
            e.break_even_qps,
            e.log_bytes,
          ]);
        }
        const configured = { coordinatorMb: sizing.coordinatorMemoryMb, shardMb: sizing.shardMemoryMb };
        const tuned = tune(measured, configured, prices);
        perQuery.sizing = configured;
        perQuery.tuned = {
          ...tuned,
          relativeCostLatency: r3(tuned.relativeCostLatency),
          relativeCost: r3(tuned.relativeCost),
          relativeLatency: r3(tuned.relativeLatency),
        };
        tuneRows.push([
          n,
          `${configured.coordinatorMb} / ${configured.shardMb}`,
          `${tuned.coordinatorMb} / ${tuned.shardMb}`,
          r3(tuned.relativeCost),
          r3(tuned.relativeLatency),
          r3(tuned.relativeCostLatency),
        ]);
        json[String(n)] = perQuery;
      } finally {
        await child.stop();
        await self.close();
      }
    }
  } finally {
    output.restore();
    await cluster.stop();
  }
  json.distributed_initiator = initiator;
  json.shard_cpu_ms_per_invocation = Object.fromEntries(Object.entries(shardCpuPerInvocation).map(([k, v]) => [k, r3(v)]));
  json.prices = prices;
  json.prices_source = source;
  json.shard_emf_bytes = shardEmfBytes;
  json.rows = rows;
  json.load_average_1m = { start: r2(load0), end: r2(loadavg()[0]!) };
  json.memory_grid_mb = MEMORY_GRID_MB;
  json.method =
    `4 shards: 4 x clickhouse-server 18.16 (${rows.toLocaleString('en-US')} rows), the coordinator's Lambda handler in this process, shard functions in a child process, every invocation timed; ` +
    `64 and 1,024 shards (tree above ${TREE_ABOVE}): shard i on server i % 4, a request a server already ran answered again after that real execution's duration; ` +
    'billed per ms rounded up x configured memory (cdk/sizing.ts) + requests + HTTP API per 512 KB of request and response bodies; the run with the median cost of each';
  const initiatorRows = Object.entries(initiator).map(([q, x]) => [q, x.cpu_ms, x.duration_ms, x.ch_scatter_coordinator_cpu_ms, x.same_answer ? 'yes' : 'NO']);
  return {
    table: [
      table(
        [
          'shards',
          'query',
          'path',
          'coordinator ms',
          'sub-coordinators',
          'shard invocations',
          'shard ms p50',
          '$/M coordinator',
          '$/M shards',
          '$/M requests',
          '$/M HTTP API',
          '$/M logs',
          '$/M total',
          '$/M total (Function URL)',
          'break-even q/s',
          'log bytes/query',
        ],
        costRows,
      ),
      `(dollars per million queries, ${prices.region} prices of ${prices.asOf} from ${source}; break-even against one always-on ${prices.node.instance} at $${prices.node.perHour}/h;` +
        ` 64 and 1,024 shards: real partials and real per-shard durations replayed (method in the JSON and docs/cost.md); load average ${r2(load0)})`,
      '',
      table(['query (4 shards)', 'Distributed initiator CPU ms', 'initiator query ms', 'ch-scatter coordinator CPU ms', 'same answer'], initiatorRows),
      '(the CPU a Distributed table spends on the node it is queried on, merging the 4 shards: 18.16 system.query_log, prefer_localhost_replica = 0)',
      '',
      table(['shards', 'configured MB (coordinator / shard)', 'tuned MB', 'relative cost', 'relative latency', 'relative cost x latency'], tuneRows),
      '(tuned: the grid pair minimizing mean Lambda cost x latency over the queries answered; CPU-bound time stretched by 1769 / MB below 1,769 MB, waits unchanged)',
    ].join('\n'),
    json,
  };
}

/** The Distributed table's initiator: median CPU (user + system) and duration of its queries, and its answer. */
async function initiatorCost(head: string, name: string, sql: string, reps: number) {
  const ids: string[] = [];
  let text = '';
  for (let i = 0; i < reps + 1; i++) {
    const id = `cost-${name}-${randomUUID()}`;
    text = await chHttp(head, `${sql} FORMAT JSON`, {
      output_format_json_quote_64bit_integers: '1',
      prefer_localhost_replica: '0',
      log_queries: '1',
      query_id: id,
    });
    if (i > 0) ids.push(id); // the first is a warm-up
  }
  // 18.16 writes a query's log entry after its answer: flush until every one of them is there.
  let entries: { query_duration_ms: number; cpu_us: number }[] = [];
  for (let attempt = 0; attempt < 100 && entries.length < reps; attempt++) {
    await chHttp(head, 'SYSTEM FLUSH LOGS');
    const log = await chHttp(
      head,
      `SELECT query_duration_ms, ProfileEvents.Values[indexOf(ProfileEvents.Names, 'UserTimeMicroseconds')] + ProfileEvents.Values[indexOf(ProfileEvents.Names, 'SystemTimeMicroseconds')] AS cpu_us FROM system.query_log WHERE type = 2 AND is_initial_query = 1 AND query_id IN (${ids.map((i) => `'${i}'`).join(', ')}) FORMAT JSONEachRow`,
      { output_format_json_quote_64bit_integers: '0' },
    );
    entries = log
      .trim()
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { query_duration_ms: number; cpu_us: number });
  }
  if (entries.length !== reps) throw new Error(`cost bench: query_log holds ${entries.length} of ${reps} initiator queries for ${name}`);
  return {
    data: (JSON.parse(text) as { data: Record<string, unknown>[] }).data,
    cpuMs: r2(
      quantile(
        entries.map((e) => e.cpu_us / 1000),
        0.5,
      ),
    ),
    durationMs: quantile(
      entries.map((e) => e.query_duration_ms),
      0.5,
    ),
  };
}

function countBy(keys: string[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const k of keys) out[k] = (out[k] ?? 0) + 1;
  return out;
}
