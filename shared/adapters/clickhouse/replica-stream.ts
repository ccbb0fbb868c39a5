// The local stack's stand-in for a streaming shard invoke: a shard request run on its replica's
// ClickHouse HTTP interface from the coordinator's process, the body read as the server writes it.
// Only for `url` replicas (an embedded one lives in its shard host's process). It follows the
// shard function's rules (readonly=2, max_execution_time from the deadline, throw on timeout) and
// names its query under the attempt's id, so the shard function's cancel KILLs it. What it has
// read is polled from system.processes while it runs.
import http from 'node:http';
import https from 'node:https';
import type { ReplicaConfig } from '../../core/config/schema.js';
import { attemptQueryId } from '../../core/shard/inflight.js';
import { shardStreamError, type ReadProgress, type ShardStreamer } from '../../core/scatter/shard-stream.js';
import type { ShardRequest } from '../../core/protocol/shard-wire.js';
import { quoteStringLiteral } from '../../core/sql/quote.js';

const POLL_MS = 100;

function post(base: URL, params: Record<string, string>, sql: string, signal: AbortSignal): Promise<http.IncomingMessage> {
  const url = new URL(base);
  for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
  const mod = url.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const r = mod.request(url, { method: 'POST', signal }, resolve);
    r.on('error', reject);
    r.end(sql);
  });
}

async function text(res: http.IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of res) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** `Code: 60. DB::Exception: ...` -> its code. */
const codeOf = (body: string) => {
  const m = /^Code: (\d+)[.,]/.exec(body);
  return m ? Number(m[1]) : undefined;
};

function stringSettings(p: ShardRequest, now: number): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(p.settings)) out[k] = typeof v === 'boolean' ? (v ? '1' : '0') : String(v);
  out.readonly = '2';
  out.max_execution_time = String(Math.max(1, Math.ceil((p.deadline - now) / 1000)));
  out.timeout_overflow_mode = 'throw';
  return out;
}

export function replicaStreamer(replicas: (shard: number) => ReplicaConfig | undefined, fallback: ShardStreamer): ShardStreamer {
  return {
    incremental: true,
    open(shard, payload, signal, onRead) {
      const replica = replicas(shard);
      if (!replica?.url) return fallback.open(shard, payload, signal, onRead);
      return streamFrom(new URL(replica.url), shard, payload, signal, onRead);
    },
  };
}

async function* streamFrom(base: URL, shard: number, p: ShardRequest, signal: AbortSignal, onRead?: (r: ReadProgress) => void): AsyncGenerator<Uint8Array> {
  const queryId = `${attemptQueryId(p)}-stream`;
  // Rows and bytes read, from the server's own process list while the query runs: polled from the
  // start, since 18.16 sends its response headers with the first block, long after the query began.
  let seen: ReadProgress = { rowsRead: 0, bytesRead: 0 };
  const poll = setInterval(() => {
    post(base, {}, `SELECT read_rows, read_bytes FROM system.processes WHERE query_id = ${quoteStringLiteral(queryId)} FORMAT TSV`, signal)
      .then(text)
      .then((t) => {
        const [rows, bytes] = t.trim().split('\t').map(Number);
        if (rows !== undefined && Number.isFinite(rows) && rows > seen.rowsRead) {
          seen = { rowsRead: rows, bytesRead: bytes ?? 0 };
          onRead?.(seen);
        }
      })
      .catch(() => undefined);
  }, POLL_MS);
  poll.unref();
  let res: http.IncomingMessage | undefined;
  try {
    res = await post(base, { ...stringSettings(p, Date.now()), query_id: queryId }, `${p.sql} FORMAT ${p.format ?? 'TabSeparated'}`, signal).catch(
      (e: Error) => {
        throw shardStreamError(shard, { message: signal.aborted ? 'shard stream abandoned' : e.message });
      },
    );
    if (res.statusCode !== 200) {
      const body = await text(res);
      throw shardStreamError(shard, { message: body.trim(), chCode: codeOf(body) });
    }
    // ClickHouse (before 25.11) writes a late exception as plain text at the end of a 200 body: read
    // one piece behind, so the last one can be looked at before it is passed on.
    let held: Buffer | undefined;
    for await (const c of res) {
      if (held) yield held;
      held = c as Buffer;
    }
    if (held) {
      const at = held.lastIndexOf('Code: ');
      const tail = at >= 0 ? held.subarray(at).toString('utf8') : '';
      if (at >= 0 && /^Code: \d+[.,] .*DB::Exception: [^\n]*\n?$/s.test(tail)) {
        if (at > 0) yield held.subarray(0, at);
        throw shardStreamError(shard, { message: tail.trim(), chCode: codeOf(tail) });
      }
      yield held;
    }
  } finally {
    clearInterval(poll);
    if (res && !res.complete) res.destroy();
  }
}
