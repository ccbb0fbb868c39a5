// The local stack's view of a streamed row query's progress: what each shard's queries have read,
// polled from its `url` replicas' system.processes while they run. The streaming hop carries the
// engine's bytes only, and 18.16 sends its progress headers with the first block, so this is how the
// front door's X-ClickHouse-Progress shows the shards' reads before the first byte on one machine.
// Embedded replicas (chdb) have no process list to poll: they report nothing until the end.
import http from 'node:http';
import https from 'node:https';
import type { ReplicaConfig } from '../../core/config/schema.js';
import type { ProgressProbe, ReadProgress } from '../../core/scatter/row-stream.js';
import { quoteStringLiteral } from '../../core/sql/quote.js';

const POLL_MS = 100;

function select(base: string, sql: string, signal: AbortSignal): Promise<string> {
  const url = new URL(base);
  const mod = url.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const r = mod.request(url, { method: 'POST', signal }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => (res.statusCode === 200 ? resolve(Buffer.concat(chunks).toString('utf8')) : reject(new Error(`status ${res.statusCode}`))));
      res.on('error', reject);
    });
    r.on('error', reject);
    r.end(sql);
  });
}

/** Every query of one shard's attempts starts with `<queryId>-s<shard>r` (shard/inflight.ts attemptQueryId). */
const readSql = (prefix: string) =>
  `SELECT sum(read_rows), sum(read_bytes) FROM system.processes WHERE substring(query_id, 1, ${Buffer.byteLength(prefix)}) = ${quoteStringLiteral(prefix)} FORMAT TSV`;

export function replicaProgress(replicas: (shard: number) => readonly ReplicaConfig[]): ProgressProbe {
  return (queryId, shards, onRead) => {
    const stop = new AbortController();
    const seen = new Map<number, ReadProgress>();
    let polling = false;
    const poll = async () => {
      if (polling) return; // a slow server: the previous poll still runs
      polling = true;
      await Promise.all(
        shards.map(async (shard) => {
          const urls = replicas(shard).flatMap((r) => (r.url ? [r.url] : []));
          const reads = await Promise.all(urls.map((u) => select(u, readSql(`${queryId}-s${shard}r`), stop.signal).catch(() => '')));
          let rowsRead = 0;
          let bytesRead = 0;
          for (const t of reads) {
            const [rows, bytes] = t.trim().split('\t').map(Number);
            if (Number.isFinite(rows)) rowsRead += rows!;
            if (Number.isFinite(bytes)) bytesRead += bytes!;
          }
          const before = seen.get(shard);
          // A finished query leaves the list: its last reading stands.
          if (rowsRead > (before?.rowsRead ?? 0)) {
            const p = { rowsRead, bytesRead };
            seen.set(shard, p);
            onRead(shard, p);
          }
        }),
      ).finally(() => {
        polling = false;
      });
    };
    const timer = setInterval(() => void poll(), POLL_MS);
    timer.unref();
    return () => {
      clearInterval(timer);
      stop.abort();
    };
  };
}
