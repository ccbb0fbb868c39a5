// The local stack's HTTP API: what API Gateway does in AWS. Each request becomes an API Gateway
// HTTP API (payload 2.0) event for the SAME coordinator handler the Lambda runs, with a Lambda
// context whose remaining time counts down from the configured function timeout. Local-only
// routes (never in AWS): POST /admin/exec runs a statement on every replica of every shard,
// POST /admin/insert?table=<distributed name> routes JSONEachRow rows through the router (both
// travel to the shard hosts as admin requests through the same local Invoke endpoint), and
// POST /admin/schedule?name=<schedule> fires a schedule the way EventBridge would.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import type { Topology } from '../shared/core/config/schema.js';
import type { ShardInvoker } from '../shared/core/scatter/invoker.js';
import { createAdminAccess } from '../shared/core/scatter/shard-admin-access.js';
import { MAX_BODY_BYTES } from '../shared/core/protocol/api-request.js';
import { toHttpApiEvent } from './http-api-event.js';
import { jsonRouteUser, type Credentials } from '../shared/core/clickhouse-http/auth.js';
import { ScatterError } from '../shared/core/errors.js';
import { exceptionAnswer } from '../shared/core/clickhouse-http/handle.js';

/**
 * The API routes read at most the coordinator's own body cap (1 MiB): API Gateway would accept 10 MB,
 * but the coordinator refuses anything over 1 MiB anyway, so reading further only costs memory (a
 * thousand concurrent 9.9 MB bodies took the local stack to 7.4 GB). Past it: 413 at once, and the
 * connection is closed instead of draining the rest.
 */
export const API_MAX_BODY_BYTES = MAX_BODY_BYTES;
/**
 * ClickHouse's interface (`/`) takes INSERT bodies: what fits a Lambda invocation once base64-encoded
 * in the event (6 MB), as in AWS.
 */
export const CLICKHOUSE_MAX_BODY_BYTES = 4 * 1024 * 1024;
/** /admin/insert takes bulk rows: a larger cap than the API. */
export const ADMIN_MAX_BODY_BYTES = 256 * 1024 * 1024;

export type CoordinatorFn = (event: APIGatewayProxyEventV2, context: Context) => Promise<unknown>;

export interface ApiServerOptions {
  port?: number;
  host?: string;
  handler: CoordinatorFn;
  topo: Topology;
  /** For the admin routes. */
  invoker: ShardInvoker;
  /** The coordinator's Lambda timeout, for context.getRemainingTimeInMillis(). */
  lambdaTimeoutMs?: number;
  /** The users file's check, when there is one: the admin routes ask for the same credentials as every other route. */
  userCheck?: (c: Credentials) => Promise<string>;
  /** Told the table /admin/insert wrote to (the coordinator's statistics read it anew). */
  onWritten?: (table: string) => void;
}

export interface ApiServer {
  url: string;
  port: number;
  /** Fire a schedule as EventBridge would (the local stack's timers use it). */
  runSchedule(name: string): Promise<[number, unknown]>;
  close(): Promise<void>;
}

class BodyTooLarge extends Error {}

function readBody(req: IncomingMessage, cap: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    // A declared length over the cap is refused before a byte is read.
    if (Number(req.headers['content-length'] ?? 0) > cap) return reject(new BodyTooLarge());
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (c: Buffer) => {
      size += c.length;
      if (size > cap) {
        req.off('data', onData);
        req.pause(); // stop reading: the caller answers 413 and closes the connection
        chunks.length = 0;
        reject(new BodyTooLarge());
        return;
      }
      chunks.push(c);
    };
    req.on('data', onData);
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(text);
}

/** A Lambda context whose remaining time counts down from `timeoutMs` (the local stack's stand-in). */
export function lambdaContext(timeoutMs: number): Context {
  const start = Date.now();
  const id = randomUUID();
  return {
    callbackWaitsForEmptyEventLoop: true,
    functionName: 'ch-scatter-coordinator',
    functionVersion: '$LATEST',
    invokedFunctionArn: 'arn:aws:lambda:local:000000000000:function:ch-scatter-coordinator',
    memoryLimitInMB: '1024',
    awsRequestId: id,
    logGroupName: '/aws/lambda/ch-scatter-coordinator',
    logStreamName: 'local',
    getRemainingTimeInMillis: () => Math.max(0, start + timeoutMs - Date.now()),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}

export async function startApiServer(opts: ApiServerOptions): Promise<ApiServer> {
  const { topo, invoker } = opts;
  const lambdaTimeoutMs = opts.lambdaTimeoutMs ?? 30_000;
  const admin = topo.shards.map((s, i) => s.replicas.map((_, j) => createAdminAccess({ invoker, shard: i, replica: j })));

  async function adminExec(body: Buffer): Promise<[number, unknown]> {
    let sql: unknown;
    try {
      sql = (JSON.parse(body.toString('utf8')) as { sql?: unknown }).sql;
    } catch {
      return [400, { error: { code: 'BAD_REQUEST', message: 'body must be JSON {"sql": "..."}' } }];
    }
    if (typeof sql !== 'string' || !sql.trim()) return [400, { error: { code: 'BAD_REQUEST', message: '$.sql: a statement is required' } }];
    const results = await Promise.all(
      admin.flatMap((reps, shard) =>
        reps.map(async (a, replica) => {
          try {
            await a.exec(sql as string);
            return { shard, replica, ok: true };
          } catch (e) {
            return { shard, replica, ok: false, error: (e as Error).message };
          }
        }),
      ),
    );
    const ok = results.every((r) => r.ok);
    return [
      ok ? 200 : 502,
      ok
        ? { ok, replicas: results }
        : {
            ok,
            replicas: results,
            error: {
              code: 'SHARD_ERROR',
              message: results
                .filter((r) => !r.ok)
                .map((r) => `shard ${r.shard} replica ${r.replica}: ${r.error}`)
                .join('; '),
            },
          },
    ];
  }

  /** What EventBridge does in AWS: invoke the coordinator with the schedule event. */
  async function adminSchedule(url: URL): Promise<[number, unknown]> {
    const name = url.searchParams.get('name');
    if (!name) return [400, { error: { code: 'BAD_REQUEST', message: 'the name= query parameter is required' } }];
    try {
      const run = await opts.handler({ kind: 'ch-scatter.schedule', name } as unknown as APIGatewayProxyEventV2, lambdaContext(lambdaTimeoutMs));
      return [200, run];
    } catch (e) {
      return [500, { error: { code: 'INTERNAL', message: (e as Error).message ?? String(e) } }];
    }
  }

  async function adminInsert(url: URL, body: Buffer): Promise<[number, unknown]> {
    const table = url.searchParams.get('table');
    if (!table) return [400, { error: { code: 'BAD_REQUEST', message: 'the table= query parameter is required' } }];
    const { insertRows } = await import('../shared/core/router/index.js');
    try {
      const skipBadRows = ['1', 'true'].includes(url.searchParams.get('skipBadRows') ?? '');
      const r = await insertRows(body.toString('utf8'), table, topo, (s, rep) => admin[s]![rep]!, {
        skipBadRows,
        ...(opts.onWritten ? { onWritten: opts.onWritten } : {}),
      });
      const out = {
        inserted: r.inserted,
        perShard: r.perShard,
        bad: r.bad,
        ...(skipBadRows && r.bad.length > 0 ? { skipped: r.bad.length } : {}),
        ...(r.write
          ? { shards: r.write.shards, committedShards: r.write.committedShards, failedShards: r.write.failedShards, failedLines: r.write.failedLines }
          : {}),
      };
      if (r.bad.length > 0 && !skipBadRows)
        return [
          400,
          {
            ...out,
            error: {
              code: 'BAD_REQUEST',
              message: `${r.bad.length} bad row(s), nothing written: ${r.bad
                .slice(0, 3)
                .map((b) => `line ${b.line}: ${b.message}`)
                .join('; ')}`,
            },
          },
        ];
      if (r.write && !r.write.ok) {
        const w = r.write;
        const lines = w.failedLines.length > 20 ? `${w.failedLines.slice(0, 20).join(', ')}, ...` : w.failedLines.join(', ');
        return [
          502,
          {
            ...out,
            error: {
              code: 'SHARD_ERROR',
              message:
                `shards ${w.committedShards.join(', ') || '(none)'} committed their rows; shards ${w.failedShards.join(', ')} did not ` +
                `(${w.failedRows} rows, input lines ${lines}). Sending the same input again is safe where the table deduplicates (see docs/api.md)`,
            },
          },
        ];
      }
      return [200, out];
    } catch (e) {
      const err = e as { code?: string; message?: string; status?: number };
      return [err.status ?? 400, { error: { code: err.code ?? 'BAD_REQUEST', message: err.message ?? String(e) } }];
    }
  }

  const server: Server = createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? '/', 'http://127.0.0.1');
      const isAdmin = url.pathname.startsWith('/admin/');
      if (isAdmin && opts.userCheck) {
        // Before the body is read: a stranger's upload costs nothing.
        try {
          await jsonRouteUser(opts.userCheck, req.headers as Record<string, string | undefined>, url.searchParams);
        } catch (e) {
          const err = e as ScatterError;
          res.once('finish', () => req.destroy());
          return send(res, err.status, err.toBody(), { 'www-authenticate': 'Basic realm="ch-scatter"', connection: 'close' });
        }
      }
      let body: Buffer;
      const cap = isAdmin ? ADMIN_MAX_BODY_BYTES : url.pathname === '/' ? CLICKHOUSE_MAX_BODY_BYTES : API_MAX_BODY_BYTES;
      try {
        body = await readBody(req, cap);
      } catch (e) {
        if (e instanceof BodyTooLarge) {
          res.once('finish', () => req.destroy());
          const message = `request body is larger than ${cap} bytes`;
          if (url.pathname === '/') {
            // ClickHouse's interface answers in ClickHouse's terms, whatever refused the request.
            const x = exceptionAnswer(new ScatterError('TOO_LARGE', message), { status: 413 });
            res.writeHead(413, { ...x.headers, connection: 'close' });
            return res.end(x.body);
          }
          return send(res, 413, { error: { code: 'TOO_LARGE', message } }, { connection: 'close' });
        }
        return send(res, 400, { error: { code: 'BAD_REQUEST', message: 'could not read the request body' } });
      }
      if (isAdmin) {
        if (req.method !== 'POST') return send(res, 405, { error: { code: 'BAD_REQUEST', message: 'admin routes take POST' } });
        const [status, out] =
          url.pathname === '/admin/exec'
            ? await adminExec(body)
            : url.pathname === '/admin/insert'
              ? await adminInsert(url, body)
              : url.pathname === '/admin/schedule'
                ? await adminSchedule(url)
                : [404, { error: { code: 'BAD_REQUEST', message: `no route ${url.pathname}` } }];
        return send(res, status as number, out);
      }
      const answer = (await opts.handler(
        toHttpApiEvent(req, url, body, { apiId: 'local', requestId: randomUUID() }),
        lambdaContext(lambdaTimeoutMs),
      )) as APIGatewayProxyStructuredResultV2;
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(answer.headers ?? {})) headers[k] = String(v);
      // A binary answer (the ClickHouse interface's) arrives base64-encoded, as API Gateway would decode it.
      if (answer.isBase64Encoded) {
        res.writeHead(answer.statusCode ?? 200, headers);
        res.end(req.method === 'HEAD' ? undefined : Buffer.from(answer.body ?? '', 'base64'));
        return;
      }
      send(res, answer.statusCode ?? 200, answer.body ?? '', headers);
    })().catch((e: unknown) => {
      // Like API Gateway when the integration fails: a generic 500, details only in our logs.
      process.stderr.write(`api-server: ${(e as Error)?.stack ?? String(e)}\n`);
      if (!res.headersSent) send(res, 500, { error: { code: 'INTERNAL', message: 'internal error' } });
      else res.end();
    });
  });
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, opts.host ?? '127.0.0.1', () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    runSchedule: (name) => adminSchedule(new URL(`http://x/?name=${encodeURIComponent(name)}`)),
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
