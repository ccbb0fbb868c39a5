// The ClickHouse HTTP interface's routes (`/` and `/ping`) on the coordinator: an API Gateway
// HTTP API event in, shared/core/clickhouse-http's answer out. The answer body is always base64
// (isBase64Encoded): formats like Native and RowBinary are binary, and API Gateway (and the local
// API server) decode it back to the exact bytes.
import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import type { Topology } from '../../shared/core/config/schema.js';
import { oneEngine } from '../../shared/core/scatter/one-engine.js';
import type { ShardInvoker } from '../../shared/core/scatter/invoker.js';
import type { StatisticsCache } from '../../shared/core/scatter/table-statistics.js';
import { handleClickHouseHttp, type ChHttpDeps, type HttpOutput } from '../../shared/core/clickhouse-http/handle.js';
import type { RawQuery, DistributedSelect, InsertRows } from '../../shared/core/clickhouse-http/types.js';
import type { UserCheck } from '../../shared/core/clickhouse-http/auth.js';
import type { RunningQueries } from '../../shared/core/clickhouse-http/running-queries.js';
import type { HttpEvent } from './events.js';
import type { RunDeps } from '../../shared/core/scatter/run-query.js';
import { generalSelect } from '../../shared/core/clickhouse-http/distributed.js';
import { shardTableSizes } from '../../shared/core/clickhouse-http/table-sizes.js';
// Static: the interface's handler (handle.ts, above) imports it already; an import() of it would only
// split it and what it shares into chunks of their own (cdk/bundling.ts).
import { ChHttpError } from '../../shared/core/clickhouse-http/exception.js';

/** One shard's engine for catalog answers (shared/core/scatter/one-engine.ts: any shard's engine answers alike). */
export function catalogEngine(topo: Topology, invoker: ShardInvoker): RawQuery {
  const engine = oneEngine(topo, invoker);
  return (sql, opts) =>
    engine.queryRaw(sql, {
      format: opts.format,
      ...(opts.settings ? { settings: opts.settings } : {}),
      ...(opts.queryId ? { queryId: opts.queryId } : {}),
      ...(opts.deadline !== undefined ? { deadline: opts.deadline } : {}),
      ...(opts.external ? { external: opts.external } : {}),
    });
}

export interface ClickHouseRouteDeps {
  topo: Topology;
  raw: RawQuery;
  select?: DistributedSelect;
  insert?: InsertRows;
  userCheck?: UserCheck;
  running?: RunningQueries;
}

/** An event's headers by lower-cased name. */
export function lowerCased(eventHeaders: HttpEvent['headers']): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(eventHeaders ?? {})) if (v !== undefined) headers[k.toLowerCase()] = v;
  return headers;
}

/** The event as the interface reads it: method, path, URL parameters, lower-cased headers, body bytes. */
export function inputOf(event: HttpEvent) {
  const headers = lowerCased(event.headers);
  const body = event.body ? Buffer.from(event.body, event.isBase64Encoded ? 'base64' : 'utf8') : Buffer.alloc(0);
  return {
    method: event.requestContext.http.method.toUpperCase(),
    path: event.rawPath ?? event.requestContext.http.path,
    query: new URLSearchParams(event.rawQueryString ?? ''),
    headers,
    body,
  };
}

/** Who an authorizer in front of the API said the caller is (a Lambda authorizer's context, or a JWT's subject). */
function authorizedUser(event: HttpEvent): string | undefined {
  const a = event.requestContext.authorizer as { lambda?: { user?: unknown }; jwt?: { claims?: Record<string, unknown> } } | undefined;
  const u = a?.lambda?.user ?? a?.jwt?.claims?.sub;
  return typeof u === 'string' && u ? u : undefined;
}

export function toResult(out: HttpOutput): APIGatewayProxyStructuredResultV2 {
  return { statusCode: out.status, headers: out.headers, body: out.body.toString('base64'), isBase64Encoded: true };
}

/**
 * `run`: the request's runtime context (invoker, hedge state, the Lambda's time left): SELECTs over
 * distributed tables run on the general path with it.
 */
export async function onClickHouseHttp(event: HttpEvent, deps: ClickHouseRouteDeps, run?: RunDeps): Promise<APIGatewayProxyStructuredResultV2> {
  const user = authorizedUser(event);
  const select =
    deps.select ??
    (run?.planTwoStage
      ? generalSelect({
          topo: run.topo,
          invoker: run.invoker,
          hedgeState: run.hedgeState,
          ...(run.topCountMemory ? { topCountMemory: run.topCountMemory } : {}),
          ...(run.tableColumns ? { tableColumns: run.tableColumns } : {}),
          planQuery: run.planQuery,
          planTwoStage: run.planTwoStage,
          ...(run.statistics ? { statistics: run.statistics } : {}),
          ...(run.exchange ? { exchange: run.exchange } : {}),
          ...(run.lambdaRemainingMs !== undefined ? { lambdaRemainingMs: run.lambdaRemainingMs } : {}),
          ...(run.onShard ? { onShard: run.onShard } : {}),
        })
      : undefined);
  const chDeps: ChHttpDeps = {
    topo: deps.topo,
    raw: deps.raw,
    ...(select ? { select } : {}),
    ...(deps.insert ? { insert: deps.insert } : {}),
    ...(deps.userCheck ? { userCheck: deps.userCheck } : {}),
    ...(deps.running ? { running: deps.running } : {}),
    ...(user ? { authorizedUser: user } : {}),
    ...(event.requestContext.requestId ? { requestId: event.requestContext.requestId } : {}),
    ...(run?.arrivedAt !== undefined ? { arrivedAt: run.arrivedAt } : {}),
    loadCodecs: () => import('./wire-codecs.js').then((m) => m.loadWireCodecs()),
    ...(run
      ? {
          tableSizes: (queryId: string, deadlineAt: number) =>
            shardTableSizes({ topo: run.topo, invoker: run.invoker, hedgeState: run.hedgeState, queryId }, deadlineAt),
        }
      : {}),
  };
  return toResult(await handleClickHouseHttp(inputOf(event), chDeps));
}

/**
 * INSERT through the router: rows placed by the sharding key's stored bytes, checked as one batch
 * by ClickHouse on one shard, then written byte for byte through the shard functions (synchronously;
 * the answer names each shard's count). A row that cannot be placed refuses the whole insert (27),
 * a row ClickHouse refuses is its own error; either way nothing is written. A shard that could not
 * commit is 279 with the shards that did and did not commit in the message.
 */
export function routerInsert(
  topo: Topology,
  getAccess: (shard: number, replica: number) => import('../../shared/core/clickhouse/port.js').ClickHouseAccess,
  statistics?: StatisticsCache,
): InsertRows {
  return async (table, data) => {
    const { insertBytes } = await import('../../shared/core/router/index.js');
    const r = await insertBytes(data, table, topo, getAccess, statistics ? { onWritten: (t) => statistics.invalidate(t) } : {});
    if (r.bad.length > 0)
      throw new ChHttpError(
        27,
        `Cannot parse input: ${r.bad.length} bad row(s), nothing written: ${r.bad
          .slice(0, 3)
          .map((b) => `row ${b.line}: ${b.message}`)
          .join('; ')}`,
      );
    if (r.write && !r.write.ok)
      throw new ChHttpError(
        279,
        `Insert into ${table} incomplete: shards ${r.write.committedShards.join(', ') || '(none)'} committed their rows, shards ${r.write.failedShards.join(', ')} did not (${r.write.failedRows} rows); sending the same rows again is safe where the table deduplicates`,
      );
    return { inserted: r.inserted, perShard: r.perShard };
  };
}
