// `ch-scatter insert`: route JSONEachRow rows from stdin to their shards. With --config the
// rows go straight to each shard's local table over HTTP (shared/core/router); with --url the body
// is posted to a running local stack's /admin/insert, which routes it the same way.
import type { Topology } from '../../shared/core/config/schema.js';
import { loadTopology } from '../../shared/core/config/load.js';
import type { ClickHouseAccess } from '../../shared/core/clickhouse/port.js';
import { createAccess } from '../../shared/adapters/clickhouse/factory.js';
import { insertRows, type InsertResult } from '../../shared/core/router/index.js';
import { flagString, parseArgs, type FlagSpec } from '../args.js';

export const summary = 'route JSONEachRow rows (stdin) to their shards, one batch per shard; prints per-shard counts';
export const usage = 'insert (--config FILE | --url URL) --table NAME [--skip-bad-rows] < rows.jsonl';
export const flags: FlagSpec = { config: 'string', url: 'string', table: 'string', 'skip-bad-rows': 'boolean' };

const MAX_BAD_SHOWN = 50;

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of process.stdin) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** Embedded replicas live in a chdb directory that only one process may open. */
export function embeddedProblem(topo: Topology): string | undefined {
  const where: string[] = [];
  for (const [i, s] of topo.shards.entries())
    s.replicas.forEach((r, j) => {
      if (r.embedded) where.push(`shards[${i}].replicas[${j}]`);
    });
  if (where.length === 0) return undefined;
  return (
    `${where.join(', ')} ${where.length === 1 ? 'is' : 'are'} embedded: an embedded shard's data directory can be opened by one process only, ` +
    `so embedded shards are reachable only through a running \`ch-scatter dev\`. Start it and use: ch-scatter insert --url http://127.0.0.1:PORT --table NAME`
  );
}

export function formatInsertReport(r: InsertResult, skipBadRows: boolean): string[] {
  const out: string[] = [];
  const read = r.perShard.reduce((a, b) => a + b, 0) + r.bad.length;
  out.push(`table ${r.table} -> ${r.local}: ${read} rows read, ${r.bad.length} bad`);
  for (const b of r.bad.slice(0, MAX_BAD_SHOWN)) out.push(`  line ${b.line}: ${b.message}`);
  if (r.bad.length > MAX_BAD_SHOWN) out.push(`  ... and ${r.bad.length - MAX_BAD_SHOWN} more bad rows`);
  if (!r.write) {
    out.push(`nothing written: ${r.bad.length} bad row(s); fix them or pass --skip-bad-rows to write the other ${read - r.bad.length}`);
    return out;
  }
  const committed: number[] = [];
  const failed: number[] = [];
  for (const s of r.write.shards) {
    const reps = s.replicas.map((x) => `replica ${x.replica} ${x.ok ? 'ok' : `failed: ${x.error}`}`).join('; ');
    if (s.status === 'empty') out.push(`shard ${s.shard}: 0 rows`);
    else if (s.status === 'committed') {
      committed.push(s.shard);
      out.push(`shard ${s.shard}: ${s.rows} rows committed (${reps})`);
    } else {
      failed.push(s.shard);
      out.push(`shard ${s.shard}: ${s.rows} rows ${s.status === 'partial' ? 'PARTIAL (some replicas hold them, some do not)' : 'FAILED'} (${reps})`);
    }
  }
  out.push(
    `inserted ${r.inserted} of ${read} rows; committed shards: ${committed.join(', ') || 'none'}; failed shards: ${failed.join(', ') || 'none'}` +
      (skipBadRows && r.bad.length ? `; skipped ${r.bad.length} bad rows` : ''),
  );
  if (r.write.failedLines.length > 0) {
    const l = r.write.failedLines;
    out.push(
      `not written: input lines ${l.length > 20 ? `${l.slice(0, 20).join(', ')}, ... (${l.length})` : l.join(', ')}; re-sending the same input is safe where the table deduplicates`,
    );
  }
  return out;
}

async function viaUrl(url: string, table: string, body: string, skipBadRows: boolean): Promise<number> {
  const target = new URL('/admin/insert', url);
  target.searchParams.set('table', table);
  if (skipBadRows) target.searchParams.set('skipBadRows', '1');
  const res = await fetch(target, { method: 'POST', body, headers: { 'content-type': 'application/x-ndjson' } });
  const text = await res.text();
  let json: Record<string, unknown>;
  try {
    json = JSON.parse(text) as Record<string, unknown>;
  } catch {
    console.error(`${target}: HTTP ${res.status}: ${text.slice(0, 500)}`);
    return 1;
  }
  if (!res.ok || json.error) {
    const err = (json.error ?? {}) as { code?: string; message?: string };
    console.error(`${err.code ?? `HTTP ${res.status}`}: ${err.message ?? text.slice(0, 500)}`);
    for (const b of (json.bad as { line: number; message: string }[] | undefined) ?? []) console.error(`  line ${b.line}: ${b.message}`);
    return 1;
  }
  const perShard = (json.perShard as number[] | undefined) ?? [];
  console.log(`inserted ${String(json.inserted)} rows`);
  for (const [i, n] of perShard.entries()) console.log(`shard ${i}: ${n} rows`);
  return 0;
}

export async function run(args: string[]): Promise<number> {
  const p = parseArgs(args, flags, usage);
  const config = flagString(p, 'config');
  const url = flagString(p, 'url');
  const table = flagString(p, 'table');
  const skipBadRows = p.flags['skip-bad-rows'] === true;
  if ((config ? 1 : 0) + (url ? 1 : 0) !== 1 || !table) {
    console.error(`usage: ch-scatter ${usage}`);
    return 2;
  }
  if (process.stdin.isTTY) {
    console.error('ch-scatter insert reads JSONEachRow rows from stdin: ch-scatter insert ... < rows.jsonl');
    return 2;
  }
  if (url) return viaUrl(url, table, await readStdin(), skipBadRows);

  const topo = loadTopology(config!);
  const embedded = embeddedProblem(topo);
  if (embedded) {
    console.error(embedded);
    return 1;
  }
  const body = await readStdin();
  const credentials = process.env.CLICKHOUSE_USER ? { username: process.env.CLICKHOUSE_USER, password: process.env.CLICKHOUSE_PASSWORD ?? '' } : undefined;
  const opened = new Map<string, Promise<ClickHouseAccess>>();
  const getAccess = (shard: number, replica: number) => {
    const k = `${shard}/${replica}`;
    let a = opened.get(k);
    if (!a) {
      a = createAccess(topo.shards[shard]!.replicas[replica]!, credentials);
      opened.set(k, a);
    }
    return a;
  };
  try {
    const result = await insertRows(body, table, topo, getAccess, { skipBadRows });
    const lines = formatInsertReport(result, skipBadRows);
    (result.write?.ok ? console.log : console.error)(lines.join('\n'));
    return result.write?.ok && (result.bad.length === 0 || skipBadRows) ? 0 : 1;
  } finally {
    await Promise.all([...opened.values()].map(async (a) => (await a.catch(() => undefined))?.close()));
  }
}
