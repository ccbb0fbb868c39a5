// The coordinator Lambda: API Gateway HTTP API events (POST /query, POST /explain, GET /health, and
// GET /play where the web console is turned on)
// and EventBridge schedule events, wired with middy and Powertools (logger with the query id on
// every line, EMF metrics, X-Ray tracer). The local stack runs this SAME handler behind its own
// HTTP server; only the environment differs (CH_SCATTER_LAMBDA_ENDPOINT -> local Invoke endpoint).
import { randomUUID } from 'node:crypto';
import { MetricUnit } from '@aws-lambda-powertools/metrics';
import type { APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { ScatterError, toClientError } from '../../shared/core/errors.js';
import { runExplain, runQuery, type RunDeps } from '../../shared/core/scatter/run-query.js';
import { runSubCoordinator } from '../../shared/core/scatter/tree.js';
import type { TreeRequest, TreeResponse } from '../../shared/core/protocol/tree-wire.js';
import { createTools as createFunctionTools, type LogLevel, type Tools, withPowertools } from '../common/powertools.js';
import { classifyEvent, type HttpEvent } from './events.js';
import { bodyOf, json, routeOf } from './http-event.js';
import { runSchedule, type ScheduleRun } from './schedule.js';
import { playResponse } from './play-page.js';
import { lowerCased, onClickHouseHttp, toResult } from './clickhouse-route.js';
import { exceptionAnswer } from '../../shared/core/clickhouse-http/handle.js';
import { jsonRouteUser } from '../../shared/core/clickhouse-http/auth.js';
import { isShardFault, METRIC, recordResult, recordShard } from './observe.js';
import type { CoordinatorDeps } from './deps.js';

export type { Tools };

/** The coordinator's Powertools (functions/common/powertools.ts), service ch-scatter-coordinator unless the environment names another. */
export function createTools(opts: { logLevel?: LogLevel } = {}): Tools {
  return createFunctionTools('ch-scatter-coordinator', opts);
}

/**
 * Build a handler. `load` runs once per container (cached): topology, invoker, planner, and the
 * Distributed parity guard when topo.distributedCheck is set. If it fails, every invocation fails
 * fast with the reason rather than answering from a topology that disagrees with ClickHouse.
 */
export function createCoordinatorHandler(load: () => Promise<CoordinatorDeps>, tools: Tools = createTools()) {
  const { logger, metrics } = tools;
  let ready: Promise<CoordinatorDeps> | undefined;
  /** Queries running now (query.maxInFlightQueries sheds above it). */
  let inFlight = 0;
  const deps = () => (ready ??= load());

  function runDeps(coordinatorDeps: CoordinatorDeps, queryId: string, context: Context | undefined, arrivedAt?: number): RunDeps {
    const remaining = context?.getRemainingTimeInMillis?.();
    return {
      ...(arrivedAt !== undefined ? { arrivedAt } : {}),
      topo: coordinatorDeps.topo,
      invoker: coordinatorDeps.invoker,
      planQuery: coordinatorDeps.planQuery,
      explainPlan: coordinatorDeps.explainPlan,
      ...(coordinatorDeps.planTwoStage ? { planTwoStage: coordinatorDeps.planTwoStage } : {}),
      hedgeState: coordinatorDeps.hedgeState,
      ...(coordinatorDeps.topCountMemory ? { topCountMemory: coordinatorDeps.topCountMemory } : {}),
      ...(coordinatorDeps.tableColumns ? { tableColumns: coordinatorDeps.tableColumns } : {}),
      ...(coordinatorDeps.cursorKey ? { cursorKey: coordinatorDeps.cursorKey } : {}),
      ...(coordinatorDeps.statistics ? { statistics: coordinatorDeps.statistics } : {}),
      ...(coordinatorDeps.exchange ? { exchange: coordinatorDeps.exchange } : {}),
      queryId,
      lambdaRemainingMs: typeof remaining === 'number' && Number.isFinite(remaining) ? remaining : undefined,
      onShard: (outcome) => {
        recordShard(metrics, outcome);
        const line = {
          shard: outcome.shard,
          replica: outcome.replica,
          status: outcome.status,
          elapsedMs: Math.round(outcome.elapsedMs),
          hedged: outcome.hedged,
          retried: outcome.retried,
        };
        if (outcome.status === 'ok') logger.debug('shard answered', line);
        // A query error (the client's SQL) is logged once, with the answer ('query done'), not per shard.
        else if (!isShardFault(outcome)) logger.debug('shard answered: query error', { ...line, chCode: outcome.chCode });
        else {
          // ClickHouse error texts can quote row values ("Cannot parse string 'x' as UInt64"): logs carry
          // no row data by default, so the text goes out only at DEBUG.
          logger.warn('shard missing', line);
          logger.debug('shard missing: error text', { shard: outcome.shard, replica: outcome.replica, errorText: outcome.message });
        }
      },
      onInternalError: (e) => logger.error('internal error', e as Error),
      ...(coordinatorDeps.tree ? { tree: coordinatorDeps.tree } : {}),
    };
  }

  /**
   * A sub-coordinator request from a root coordinator (the aggregation tree, shared/core/scatter/tree.ts):
   * fan out to the named shards under the root's deadline and answer their (pre-)merged partials.
   * It never fans out further (runSubCoordinator uses the flat gather), so the tree has two levels.
   */
  async function onTree(req: TreeRequest): Promise<TreeResponse> {
    logger.appendKeys({ queryId: req.queryId, treeGroup: req.group });
    metrics.addMetric(METRIC.subCoordinator, MetricUnit.Count, 1);
    const coordinatorDeps = await deps();
    const res = await runSubCoordinator(req, { topo: coordinatorDeps.topo, invoker: coordinatorDeps.invoker, hedgeState: coordinatorDeps.hedgeState });
    // The root reports a query error; only shards that failed it are this group's to warn about.
    for (const o of res.outcomes.filter(isShardFault))
      logger.warn('shard missing', { shard: o.shard, replica: o.replica, status: o.status, elapsedMs: Math.round(o.elapsedMs) });
    const missing = res.outcomes.filter((o) => o.status !== 'ok');
    logger.info('sub-coordinator done', {
      group: req.group,
      shards: req.tasks.length,
      missing: missing.length,
      mode: res.mode,
      elapsedMs: Math.round(res.statistics.elapsedMs),
    });
    return res;
  }

  async function onHttp(event: HttpEvent, context: Context | undefined): Promise<APIGatewayProxyStructuredResultV2> {
    // Before loading, authenticating and parsing: the request's deadline counts from here.
    const arrivedAt = Date.now();
    const route = routeOf(event);
    metrics.addMetric(METRIC.request, MetricUnit.Count, 1);
    // A caller may choose the query id (to find its logs); it travels to ClickHouse's query_id, so only plain ids pass.
    const asked = event.headers?.['x-query-id'];
    const queryId = asked && /^[A-Za-z0-9._:-]{1,128}$/.test(asked) ? asked : event.requestContext?.requestId || randomUUID();
    logger.appendKeys({ queryId });
    const headers = { 'x-query-id': queryId };
    if (route === 'unknown')
      return json(404, { error: { code: 'BAD_REQUEST', message: `no route ${event.requestContext.http.method} ${event.rawPath}` } }, headers);
    if (route === 'method')
      return json(405, { error: { code: 'BAD_REQUEST', message: `method ${event.requestContext.http.method} not allowed on ${event.rawPath}` } }, headers);
    let coordinatorDeps: CoordinatorDeps;
    try {
      coordinatorDeps = await deps();
    } catch (e) {
      logger.error('coordinator not ready', e as Error);
      const err = e instanceof ScatterError ? e : new ScatterError('INTERNAL', `coordinator not ready: ${(e as Error).message ?? String(e)}`);
      recordResult(metrics, err.status, err.toBody());
      return json(err.status, err.toBody(), headers);
    }
    // Users configured: every route asks for the same credentials as the ClickHouse interface (which checks its own).
    const userCheck = coordinatorDeps.clickhouse?.userCheck;
    if (userCheck && route !== 'clickhouse') {
      try {
        await jsonRouteUser(userCheck, lowerCased(event.headers), new URLSearchParams(event.rawQueryString ?? ''));
      } catch (e) {
        const err = e as ScatterError;
        recordResult(metrics, err.status, err.toBody());
        return json(err.status, err.toBody(), { ...headers, 'www-authenticate': 'Basic realm="ch-scatter"' });
      }
    }
    const isQuery =
      route === 'query' ||
      route === 'explain' ||
      (route === 'clickhouse' && !/\/(ping|replicas_status)\/?$/.test(event.rawPath ?? '') && event.requestContext.http.method !== 'OPTIONS');
    const cap = coordinatorDeps.topo.query.maxInFlightQueries;
    if (isQuery && cap > 0 && inFlight >= cap) {
      const err = new ScatterError('TOO_MANY_QUERIES', `Too many simultaneous queries. Maximum: ${cap}`);
      recordResult(metrics, err.status, err.toBody());
      if (route !== 'clickhouse') return json(err.status, err.toBody(), { ...headers, 'retry-after': '1' });
      return toResult(exceptionAnswer(err, { headers: { 'retry-after': '1' } }));
    }
    if (isQuery) inFlight++;
    try {
      return await routeHttp(event, context, route, coordinatorDeps, queryId, headers, arrivedAt);
    } finally {
      if (isQuery) inFlight--;
    }
  }

  async function routeHttp(
    event: HttpEvent,
    context: Context | undefined,
    route: ReturnType<typeof routeOf>,
    coordinatorDeps: CoordinatorDeps,
    queryId: string,
    headers: Record<string, string>,
    arrivedAt: number,
  ): Promise<APIGatewayProxyStructuredResultV2> {
    if (route === 'clickhouse') {
      if (!coordinatorDeps.clickhouse)
        return json(404, { error: { code: 'BAD_REQUEST', message: `no route ${event.requestContext.http.method} ${event.rawPath}` } }, headers);
      const res = await onClickHouseHttp(
        event,
        { topo: coordinatorDeps.topo, ...coordinatorDeps.clickhouse },
        runDeps(coordinatorDeps, queryId, context, arrivedAt),
      );
      logger.info('clickhouse done', { status: res.statusCode, exceptionCode: res.headers?.['x-clickhouse-exception-code'] });
      return res;
    }
    if (route === 'play') {
      // Off unless the deployment ships the page: then the route does not exist, as any other unknown path.
      if (!coordinatorDeps.playPage) return json(404, { error: { code: 'BAD_REQUEST', message: `no route GET ${event.rawPath}` } }, headers);
      try {
        return playResponse(coordinatorDeps.playPage(), headers);
      } catch (e) {
        logger.error('play page unreadable', e as Error);
        const err = new ScatterError('INTERNAL', 'internal error');
        return json(err.status, err.toBody(), headers);
      }
    }
    if (route === 'health') {
      return json(
        200,
        {
          status: 'ok',
          cluster: coordinatorDeps.topo.cluster,
          shards: coordinatorDeps.topo.shards.map((s, i) => ({ shard: i, weight: s.weight, replicas: s.replicas.length })),
        },
        headers,
      );
    }
    const queryDeps = runDeps(coordinatorDeps, queryId, context, arrivedAt);
    const t0 = Date.now();
    const res = route === 'query' ? await runQuery(bodyOf(event), queryDeps) : await runExplain(bodyOf(event), queryDeps);
    recordResult(metrics, res.status, res.body);
    const body = res.body as {
      partial?: boolean;
      shards?: { missing?: unknown[] };
      error?: { code: string; message: string };
      clickhouse?: { code: number; name: string };
    };
    logger.info(`${route} done`, {
      status: res.status,
      elapsedMs: Date.now() - t0,
      partial: body.partial,
      // A query error lists every shard it reached as missing; the count would read as an outage.
      missing: body.clickhouse ? undefined : body.shards?.missing?.length,
      error: body.error?.code,
      // A query error's ClickHouse code and name (never its text: it may quote row data).
      clickhouse: body.error ? body.clickhouse : undefined,
    });
    // The error message may quote row data (see onShard): DEBUG only.
    if (body.error) logger.debug(`${route} error message`, { errorMessage: body.error.message });
    return json(res.status, res.body, headers);
  }

  /**
   * An event shaped like an API Gateway request that fails its schema: a 400 naming the first
   * problems (paths into the event, never its values), like any other bad request.
   */
  function onMalformedHttp(problems: string[]): APIGatewayProxyStructuredResultV2 {
    const queryId = randomUUID();
    logger.appendKeys({ queryId });
    metrics.addMetric(METRIC.request, MetricUnit.Count, 1);
    const body = { error: { code: 'BAD_REQUEST', message: `malformed API Gateway event: ${problems.join('; ')}` } };
    recordResult(metrics, 400, body);
    logger.warn('malformed API Gateway event', { problems });
    return json(400, body, { 'x-query-id': queryId });
  }

  async function onSchedule(name: string, context: Context | undefined, eventId?: string): Promise<ScheduleRun> {
    const queryId = `schedule-${name}-${randomUUID()}`;
    logger.appendKeys({ queryId, schedule: name, ...(eventId ? { eventId } : {}) });
    const coordinatorDeps = await deps();
    try {
      if (!coordinatorDeps.writeRows) throw new ScatterError('INTERNAL', 'no router configured for scheduled inserts');
      const run = await runSchedule(name, coordinatorDeps.topo, { ...runDeps(coordinatorDeps, queryId, context), writeRows: coordinatorDeps.writeRows });
      metrics.addMetric(METRIC.scheduleRun, MetricUnit.Count, 1);
      if (run.partial) {
        metrics.addMetric(METRIC.schedulePartial, MetricUnit.Count, 1);
        logger.warn('scheduled run was partial: inserted with _partial = 1', { ...run });
      } else logger.info('scheduled run done', { ...run });
      return run;
    } catch (e) {
      metrics.addMetric(METRIC.scheduleFailed, MetricUnit.Count, 1);
      const err = toClientError(e);
      logger.error('scheduled run failed', { code: err.code, message: err.message, error: e as Error });
      throw new Error(`schedule ${name} failed: ${err.code}: ${err.message}`);
    }
  }

  const core = async (event: unknown, context: Context): Promise<unknown> => {
    if (isTreeRequest(event)) return onTree(event);
    const e = classifyEvent(event);
    switch (e.type) {
      case 'http':
        return onHttp(e.event, context);
      case 'schedule':
        return onSchedule(e.name, context, e.eventId);
      case 'malformed':
        if (e.of === 'http') return onMalformedHttp(e.problems);
        // A scheduled invocation has no caller to answer: it fails, and the failure is counted and logged.
        metrics.addMetric(METRIC.scheduleFailed, MetricUnit.Count, 1);
        logger.error('malformed schedule event', { problems: e.problems });
        throw new Error(`malformed schedule event: ${e.problems.join('; ')}`);
      case 'unrecognized':
        logger.error('unrecognized event', { keys: typeof event === 'object' && event !== null ? Object.keys(event).slice(0, 20) : typeof event });
        throw new Error('unrecognized event: expected an API Gateway HTTP API v2 event or {"kind":"ch-scatter.schedule","name":...}');
    }
  };

  return withPowertools(core, tools);
}

/** A TreeRequest (shared/core/protocol/tree-wire.ts) as a root coordinator sends it to its own function. */
export function isTreeRequest(e: unknown): e is TreeRequest {
  const p = e as Partial<TreeRequest> | null;
  return !!p && typeof p === 'object' && p.type === 'tree' && Array.isArray(p.tasks) && typeof p.deadline === 'number' && typeof p.queryId === 'string';
}

let defaultHandler: ReturnType<typeof createCoordinatorHandler> | undefined;

/** The deployed entry point. Dependencies load on the first invocation (cold start). */
export const handler = (event: unknown, context: Context) => {
  if (!defaultHandler) {
    const tools = createTools();
    defaultHandler = createCoordinatorHandler(async () => (await import('./deps.js')).loadDefaultDeps(process.env, tools.tracer), tools);
  }
  return defaultHandler(event, context);
};
