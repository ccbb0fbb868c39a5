// The JSON API's POST /query on the streaming front door. A query that only reads rows of one
// distributed table (stream-select.ts's readsRowsOnly) is streamed: each shard writes JSONEachRow
// over the streaming hop (scatter/row-stream.ts), and its rows become the `data` array as they
// come, in the HTTP API's value spellings; the completeness fields (`partial`, `shards` with the
// missing ones) come after the rows, as ClickHouse's JSON format puts its statistics last. Anything
// else (aggregates, ORDER BY, LIMIT, cursors, JOINs) is answered whole by `whole`, the HTTP API's
// own answer. A shard that fails once rows went out cannot be taken back: the document is closed
// with `"partial": true` and the error, never a shorter answer labelled complete.
import { truncatingModes } from '../clickhouse/overflow-modes.js';
import { stringifyAnswer } from '../protocol/answer-json.js';
import type { Topology } from '../config/schema.js';
import type { ColumnMeta } from '../clickhouse/port.js';
import { ScatterError, toClientError } from '../errors.js';
import { planQueryWith } from '../plan/build.js';
import { constantsOnlyRunner } from '../scatter/one-engine.js';
import type { QueryPlan } from '../plan/types.js';
import { parseQueryRequest, type QueryRequest } from '../protocol/api-request.js';
import { computeDeadline } from '../scatter/deadline.js';
import { shardCallFor } from '../scatter/gather.js';
import type { HedgeState } from '../scatter/hedge.js';
import type { ShardInvoker } from '../scatter/invoker.js';
import { clauseSettings, passThroughSplitter, productModeOf } from '../scatter/plan-inputs.js';
import { boundStatement } from '../scatter/query-session.js';
import { streamRows } from '../scatter/row-stream.js';
import { JSON_FINAL_SETTINGS, rowLineSpeller } from '../scatter/two-stage/final-output.js';
import { refuseForAnyPath } from '../scatter/two-stage/guard.js';
import type { ResponseSink } from './stream-answer.js';
import { readsRowsOnly } from './stream-select.js';

export interface JsonStreamDeps {
  topo: Topology;
  /** The shards are read through its streaming hop (invokeStream), else whole answers. */
  invoker: ShardInvoker;
  hedgeState: HedgeState;
  lambdaRemainingMs?: number;
  now?: () => number;
}

export interface JsonStreamRequest {
  body: Buffer;
  queryId: string;
  arrivedAt: number;
}

/** The HTTP API's answer to a request, built whole (status and JSON body). */
export type WholeAnswer = (req: QueryRequest) => Promise<{ status: number; body: unknown }>;

const JSON_HEADERS = { 'content-type': 'application/json; charset=utf-8' };
const encoder = new TextEncoder();

/** Answer one POST /query on `sink`. Never throws. */
export async function streamJsonQuery(r: JsonStreamRequest, deps: JsonStreamDeps, sink: ResponseSink, whole: WholeAnswer): Promise<void> {
  const headers = { ...JSON_HEADERS, 'x-query-id': r.queryId };
  let req: QueryRequest;
  let planned: { plan: QueryPlan; deadlineAt: number } | undefined;
  try {
    req = parseQueryRequest(r.body.toString('utf8'));
    planned = await rowPlan(req, deps, r.arrivedAt, r.queryId);
    if (!planned) {
      const res = await whole(req);
      return await writeJson(sink, res.status, res.body, headers);
    }
  } catch (e) {
    const err = toClientError(e);
    return await writeJson(sink, err.status, err.toBody(), headers);
  }
  const { plan, deadlineAt } = planned;
  const now = deps.now ?? Date.now;
  let meta: ColumnMeta[];
  try {
    meta = await metaOf(plan, deps, r.queryId, deadlineAt, sink.closed);
  } catch (e) {
    const err = toClientError(e);
    return await writeJson(sink, err.status, err.toBody(), headers);
  }
  const queried = plan.shards.filter((s) => !s.skipped).length;
  const shards = { total: deps.topo.shards.length, queried, skipped: plan.shards.length - queried };
  const spell = rowLineSpeller(meta);
  let rows = 0;
  let pending = '';
  const decoder = new TextDecoder();
  const put = (s: string) => sink.write(encoder.encode(s));
  const lines = async (text: string) => {
    const all = pending + text;
    const cut = all.lastIndexOf('\n');
    if (cut < 0) {
      pending = all;
      return;
    }
    pending = all.slice(cut + 1);
    let out = '';
    for (const line of all.slice(0, cut).split('\n')) {
      if (line.length === 0) continue;
      out += (rows++ === 0 ? '\n' : ',\n') + spell(line);
    }
    if (out) await put(out);
  };
  sink.begin(200, headers);
  await put(`{"meta":${JSON.stringify(meta)},"data":[`);
  try {
    const read = await streamRows({
      topo: deps.topo,
      plan,
      invoker: deps.invoker,
      hedgeState: deps.hedgeState,
      queryId: r.queryId,
      deadlineAt,
      now,
      formats: { first: 'JSONEachRow', rest: 'JSONEachRow', lineRows: { headerLines: 0 } },
      formatSettings: JSON_FINAL_SETTINGS,
      signal: sink.closed,
      // Asked so the shards report their reads beside their bytes: the answer's statistics sum them.
      onRead: () => {},
      write: (chunk) => lines(decoder.decode(chunk, { stream: true })),
    });
    await lines(`${decoder.decode()}\n`);
    const statistics = { elapsedMs: now() - r.arrivedAt, rowsRead: read.rowsRead, bytesRead: read.bytesRead, deadlineMs: deadlineAt - r.arrivedAt };
    await put(`\n],"rows":${rows},"partial":false,"shards":${JSON.stringify({ ...shards, missing: [] })},"statistics":${JSON.stringify(statistics)}}\n`);
  } catch (e) {
    if (sink.closed.aborted) return sink.end();
    const err = toClientError(e);
    const failed = /^shard (\d+):/.exec(err.message);
    const missing = failed ? [{ shard: Number(failed[1]), reason: err.code === 'TIMEOUT' ? 'timeout' : 'error', message: err.message }] : [];
    const tail = { rows, partial: true, shards: { ...shards, missing }, ...err.toBody() };
    await put(`\n],${JSON.stringify(tail).slice(1)}\n`).catch(() => undefined);
  }
  sink.end();
}

/** The plan of a request that streams, with its deadline; undefined: answered whole. */
async function rowPlan(
  req: QueryRequest,
  deps: JsonStreamDeps,
  arrivedAt: number,
  queryId: string,
): Promise<{ plan: QueryPlan; deadlineAt: number } | undefined> {
  if (req.cursor !== undefined || req.requireCoverage !== undefined) return undefined;
  const stmt = boundStatement(req.sql, req.params);
  if (!stmt || !readsRowsOnly(stmt)) return undefined;
  refuseForAnyPath(stmt, deps.topo);
  const settings = { ...(req.settings ?? {}), ...clauseSettings(stmt) };
  // A truncating overflow mode applies where the shards' rows meet too, and the answer is labelled truncated: answered whole.
  if (truncatingModes(settings).length) return undefined;
  const deadline = computeDeadline({
    now: arrivedAt,
    ...(req.timeoutMs !== undefined ? { requestTimeoutMs: req.timeoutMs } : {}),
    configTimeoutMs: deps.topo.query.timeoutMs,
    ...(deps.lambdaRemainingMs !== undefined ? { lambdaRemainingMs: deps.lambdaRemainingMs } : {}),
    behindApiGateway: false,
  });
  // The key's constant operands are folded on one engine, as on the other doors.
  const runSubquery = constantsOnlyRunner({ topo: deps.topo, invoker: deps.invoker, deadlineAt: deadline.at, queryId });
  const plan = await planQueryWith(stmt, deps.topo, { settings, distributedProductMode: productModeOf(settings, deps.topo), runSubquery }, passThroughSplitter);
  if (plan.shards.every((s) => s.skipped)) return undefined;
  return { plan, deadlineAt: deadline.at };
}

/**
 * The answer's columns before its first row: the first queried shard's SELECT with LIMIT 0 in
 * ClickHouse's JSON format (its meta), each replica in turn.
 */
async function metaOf(plan: QueryPlan, deps: JsonStreamDeps, queryId: string, deadlineAt: number, signal: AbortSignal): Promise<ColumnMeta[]> {
  const sp = plan.shards.find((s) => !s.skipped)!;
  const ask = shardCallFor(plan, sp, deps.topo, `${queryId}-meta`, deadlineAt, { format: 'JSON' });
  let last: unknown;
  for (let replica = 0; replica < ask.replicaCount; replica++) {
    const base = ask.request(replica, 'primary');
    try {
      const res = await deps.invoker.invoke(sp.shard, { ...base, sql: `${base.sql} LIMIT 0`, settings: { ...base.settings, ...JSON_FINAL_SETTINGS } }, signal);
      if (!res.ok) {
        last = new ScatterError(res.error.code === 'QUERY_ERROR' ? 'QUERY_ERROR' : 'SHARD_ERROR', `shard ${sp.shard}: ${res.error.message}`);
        if (res.error.code === 'QUERY_ERROR') break;
        continue;
      }
      const doc = JSON.parse(Buffer.from(res.raw ?? '', 'base64').toString('utf8')) as { meta?: ColumnMeta[] };
      if (!Array.isArray(doc.meta)) throw new ScatterError('SHARD_ERROR', `shard ${sp.shard}: its answer has no meta`);
      return doc.meta.map((m) => ({ name: m.name, type: m.type }));
    } catch (e) {
      last = e;
    }
  }
  throw last ?? new ScatterError('SHARD_ERROR', `shard ${sp.shard}: no replica answered`);
}

async function writeJson(sink: ResponseSink, status: number, body: unknown, headers: Record<string, string>): Promise<void> {
  sink.begin(status, headers);
  await sink.write(encoder.encode(stringifyAnswer(body)));
  sink.end();
}
