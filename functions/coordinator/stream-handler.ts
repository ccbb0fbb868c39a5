// The streaming front door: ClickHouse's HTTP interface with answers written as they are produced
// (shared/core/clickhouse-http/stream-answer.ts), and the JSON API's POST /query with row answers
// streamed (stream-json-query.ts), served by a Lambda Function URL in RESPONSE_STREAM
// mode in AWS and by local/stream-server.ts on one machine. Credentials are checked here, as the
// authorizer checks them behind API Gateway (the users list), unless the URL's AWS_IAM auth did.
// The one deadline is the request's max_execution_time (else the configured one) inside the
// function's remaining time: no API Gateway 30 s cap on this door.
import { randomUUID } from 'node:crypto';
import type { Context } from 'aws-lambda';
import { jsonRouteUser } from '../../shared/core/clickhouse-http/auth.js';
import { streamJsonQuery } from '../../shared/core/clickhouse-http/stream-json-query.js';
import { toClientError } from '../../shared/core/errors.js';
import { runQuery } from '../../shared/core/scatter/run-query.js';
import type { RunDeps } from '../../shared/core/scatter/query-types.js';
import { streamClickHouseHttp, type ResponseSink } from '../../shared/core/clickhouse-http/stream-answer.js';
import { streamSelect } from '../../shared/core/clickhouse-http/stream-select.js';
import { generalSelect } from '../../shared/core/clickhouse-http/distributed.js';
import type { HttpInput } from '../../shared/core/clickhouse-http/request.js';
import type { ProgressProbe } from '../../shared/core/scatter/row-stream.js';
import type { CoordinatorDeps } from './deps.js';
import { inputOf } from './clickhouse-route.js';
import type { HttpEvent } from './events.js';

export interface FrontDoorRequest {
  arrivedAt: number;
  /** context.getRemainingTimeInMillis() at arrival. */
  lambdaRemainingMs?: number;
  requestId?: string;
  /** The caller as the URL's AWS_IAM auth names it: no credentials checked here then. */
  iamUser?: string;
}

/**
 * One request answered on `sink`; row queries read the shards through the invoker's streaming hop.
 * `progress`: where the shards' rows and bytes read are seen while they run, if anywhere.
 */
export async function serveStreaming(
  deps: CoordinatorDeps,
  progress: ProgressProbe | undefined,
  input: HttpInput,
  sink: ResponseSink,
  r: FrontDoorRequest,
): Promise<void> {
  if (input.method === 'POST' && input.path.replace(/\/+$/, '') === '/query') return serveJsonQuery(deps, progress, input, sink, r);
  const ch = deps.clickhouse;
  const remaining = r.lambdaRemainingMs !== undefined ? { lambdaRemainingMs: r.lambdaRemainingMs } : {};
  const select = deps.planTwoStage
    ? generalSelect({
        topo: deps.topo,
        invoker: deps.invoker,
        hedgeState: deps.hedgeState,
        ...(deps.topCountMemory ? { topCountMemory: deps.topCountMemory } : {}),
        ...(deps.exchange ? { exchange: deps.exchange } : {}),
        planQuery: deps.planQuery,
        planTwoStage: deps.planTwoStage,
        behindApiGateway: false,
        ...remaining,
      })
    : undefined;
  await streamClickHouseHttp(
    input,
    {
      topo: deps.topo,
      raw: ch!.raw,
      ...(select ? { select } : {}),
      ...(ch?.insert ? { insert: ch.insert } : {}),
      ...(r.iamUser ? { authorizedUser: r.iamUser } : ch?.userCheck ? { userCheck: ch.userCheck } : {}),
      ...(r.requestId ? { requestId: r.requestId } : {}),
      arrivedAt: r.arrivedAt,
      stream: streamSelect({ topo: deps.topo, invoker: deps.invoker, hedgeState: deps.hedgeState, ...(progress ? { progress } : {}), ...remaining }),
    },
    sink,
  );
}

/**
 * The JSON API's POST /query on this door: rows streamed where the query only reads rows, the HTTP
 * API's whole answer otherwise. Credentials as the HTTP API asks them when users are configured.
 */
async function serveJsonQuery(
  deps: CoordinatorDeps,
  progress: ProgressProbe | undefined,
  input: HttpInput,
  sink: ResponseSink,
  r: FrontDoorRequest,
): Promise<void> {
  const asked = input.headers['x-query-id'];
  const queryId = asked && /^[A-Za-z0-9._:-]{1,128}$/.test(asked) ? asked : r.requestId || randomUUID();
  const userCheck = deps.clickhouse?.userCheck;
  if (!r.iamUser && userCheck) {
    try {
      await jsonRouteUser(userCheck, input.headers, input.query);
    } catch (e) {
      const err = toClientError(e);
      sink.begin(err.status, { 'content-type': 'application/json; charset=utf-8', 'www-authenticate': 'Basic realm="ch-scatter"', 'x-query-id': queryId });
      await sink.write(new TextEncoder().encode(JSON.stringify(err.toBody())));
      return sink.end();
    }
  }
  const remaining = r.lambdaRemainingMs !== undefined ? { lambdaRemainingMs: r.lambdaRemainingMs } : {};
  const run: RunDeps = {
    topo: deps.topo,
    invoker: deps.invoker,
    planQuery: deps.planQuery,
    explainPlan: deps.explainPlan,
    ...(deps.planTwoStage ? { planTwoStage: deps.planTwoStage } : {}),
    hedgeState: deps.hedgeState,
    ...(deps.topCountMemory ? { topCountMemory: deps.topCountMemory } : {}),
    ...(deps.tableColumns ? { tableColumns: deps.tableColumns } : {}),
    ...(deps.cursorKey ? { cursorKey: deps.cursorKey } : {}),
    ...(deps.statistics ? { statistics: deps.statistics } : {}),
    ...(deps.exchange ? { exchange: deps.exchange } : {}),
    queryId,
    arrivedAt: r.arrivedAt,
    behindApiGateway: false,
    ...remaining,
  };
  await streamJsonQuery(
    { body: input.body, queryId, arrivedAt: r.arrivedAt },
    { topo: deps.topo, invoker: deps.invoker, hedgeState: deps.hedgeState, ...(progress ? { progress } : {}), ...remaining },
    sink,
    (req) => runQuery(req, run),
  );
}

/** Lambda's response stream (awslambda.HttpResponseStream): the status and headers go as one prelude before the first byte. */
interface LambdaResponseStream {
  write(chunk: Uint8Array, cb?: (e?: Error | null) => void): boolean;
  end(): void;
  once(event: 'drain' | 'close' | 'error', fn: () => void): void;
  destroyed?: boolean;
}
interface AwsLambdaGlobal {
  streamifyResponse(fn: (event: unknown, stream: LambdaResponseStream, context: Context) => Promise<void>): unknown;
  HttpResponseStream: { from(stream: LambdaResponseStream, prelude: { statusCode: number; headers: Record<string, string> }): LambdaResponseStream };
}

/**
 * A sink over Lambda's response stream. Its prelude is sent once, so progress headers are kept and
 * the last one goes with the status at the first byte; a write that fails (the client left) aborts.
 */
export function lambdaSink(raw: LambdaResponseStream, from: AwsLambdaGlobal['HttpResponseStream']['from']): ResponseSink {
  const gone = new AbortController();
  raw.once('close', () => gone.abort(new Error('the client went away')));
  raw.once('error', () => gone.abort(new Error('the response stream failed')));
  let status = 200;
  let headers: Record<string, string> = {};
  let out: LambdaResponseStream | undefined;
  const opened = () => (out ??= from(raw, { statusCode: status, headers }));
  return {
    closed: gone.signal,
    begin(s, h) {
      status = s;
      headers = { ...h };
    },
    header(name, value) {
      headers[name.toLowerCase()] = value;
    },
    write(chunk) {
      const s = opened();
      return new Promise((resolve, reject) => {
        const ok = s.write(chunk, (e) => {
          if (!e) return;
          gone.abort(e);
          reject(e);
        });
        if (ok) resolve();
        else s.once('drain', resolve);
      });
    },
    end() {
      opened().end();
    },
  };
}

/** The Function URL's handler, when running in Lambda's Node runtime (which provides `awslambda`). */
export function lambdaStreamingHandler(load: () => Promise<CoordinatorDeps>, progress?: ProgressProbe): unknown {
  const aws = (globalThis as { awslambda?: Partial<AwsLambdaGlobal> }).awslambda;
  // Other code (Powertools' invoke store) may set `awslambda` without the runtime's streaming API.
  if (typeof aws?.streamifyResponse !== 'function' || !aws.HttpResponseStream) return undefined;
  const from = aws.HttpResponseStream.from;
  let ready: Promise<CoordinatorDeps> | undefined;
  return aws.streamifyResponse(async (event, stream, context) => {
    const arrivedAt = Date.now();
    ready ??= load();
    const deps = await ready;
    const e = event as HttpEvent & { requestContext: { authorizer?: { iam?: { userArn?: string } } } };
    const iamUser = e.requestContext.authorizer?.iam?.userArn;
    await serveStreaming(deps, progress, inputOf(e), lambdaSink(stream, from), {
      arrivedAt,
      lambdaRemainingMs: context.getRemainingTimeInMillis(),
      ...(e.requestContext.requestId ? { requestId: e.requestContext.requestId } : {}),
      ...(iamUser ? { iamUser } : {}),
    });
  });
}
