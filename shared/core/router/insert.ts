// Route + write in one call, as `ch-scatter insert --config` and the local stack's
// POST /admin/insert use it. Bad rows stop the whole insert before anything is written
// (like ClickHouse refusing a malformed INSERT), unless the caller opts into skipping them.
import type { Topology } from '../config/schema.js';
import { createPlacement } from '../sharding/index.js';
import { routeRows, tableFor, type RouteInput } from './route.js';
import { writeRouted, type GetAccess, type InsertResult } from './write.js';
import { checkRows } from './validate.js';
import type { ColumnMeta, InsertData } from '../clickhouse/port.js';
import { checkBatch } from './insert-data.js';
import { quoteStringLiteral as quoteString } from '../sql/quote.js';
import { ScatterError } from '../errors.js';

/** The local table's columns as shard 0 (first replica that answers) has them. */
async function readColumns(local: string, topo: Topology, getAccess: GetAccess): Promise<ColumnMeta[]> {
  const [db, table] = local.includes('.') ? [local.slice(0, local.indexOf('.')), local.slice(local.indexOf('.') + 1)] : ['default', local];
  const sql = `SELECT name, type FROM system.columns WHERE database = ${quoteString(db)} AND table = ${quoteString(table)}`;
  let last: unknown;
  for (let r = 0; r < topo.shards[0]!.replicas.length; r++) {
    try {
      const res = await (await getAccess(0, r)).query(sql);
      const cols = res.rows.map((x) => ({ name: String(x.name), type: String(x.type) }));
      if (cols.length === 0) throw new ScatterError('UNKNOWN_TABLE', `${local} does not exist on shard 0`);
      return cols;
    } catch (e) {
      if (e instanceof ScatterError) throw e;
      last = e;
    }
  }
  throw new ScatterError(
    'SHARD_ERROR',
    `could not read the columns of ${local} from shard 0 to check the rows, so nothing was written: ${(last as Error)?.message ?? String(last)}`,
  );
}

/** Every shard's lines as one JSONEachRow batch, in input order. */
function jsonData(texts: string[][], lines: number[][]): InsertData {
  const all = texts.flatMap((t, s) => t.map((text, i) => ({ text, line: lines[s]![i]! })));
  all.sort((a, b) => a.line - b.line);
  return { format: 'JSONEachRow', rows: all.map((r) => Buffer.from(r.text, 'utf8')) };
}

export interface InsertOptions {
  /** Write the good rows even when some rows are bad (default false: write nothing). */
  skipBadRows?: boolean;
  /**
   * The local table's columns, to check every row against before anything is written. Default: read
   * from shard 0 (system.columns). An insert whose columns cannot be read is refused, not guessed at.
   */
  columns?: ColumnMeta[];
  /** Told the distributed table's name once rows may have reached a shard (the coordinator's statistics read it anew). */
  onWritten?: (table: string) => void;
}

export type { InsertResult } from './write.js';

export async function insertRows(input: RouteInput, tableName: string, topo: Topology, getAccess: GetAccess, opts: InsertOptions = {}): Promise<InsertResult> {
  const { table } = tableFor(topo, tableName);
  const placement = await createPlacement(topo.shards, table.shardingKey);
  const routed = routeRows(input, tableName, topo, placement);
  // Type errors anywhere are found before any shard commits: the whole insert is refused (or, with
  // skipBadRows, those rows are left out) with their line numbers.
  // Checked for client text (the CLI, /admin/insert); rows given as objects come from ch-scatter's own
  // query results (scheduled runs), in ClickHouse's JSON conventions already.
  const fromText = typeof input === 'string' || (input.length > 0 && typeof input[0] === 'string');
  const columns = opts.columns ?? (fromText ? await readColumns(routed.local, topo, getAccess) : []);
  const typeBad = new Set<number>();
  if (fromText || opts.columns)
    routed.batches.forEach((rows, s) => {
      for (const b of checkRows(rows, routed.lines[s]!, columns)) {
        routed.bad.push(b);
        typeBad.add(b.line);
      }
    });
  if (typeBad.size > 0) {
    routed.bad.sort((a, b) => a.line - b.line);
    routed.batches.forEach((rows, s) => {
      const keep = routed.lines[s]!.map((l) => !typeBad.has(l));
      routed.batches[s] = rows.filter((_, i) => keep[i]);
      if (routed.texts) routed.texts[s] = routed.texts[s]!.filter((_, i) => keep[i]);
      routed.lines[s] = routed.lines[s]!.filter((_, i) => keep[i]);
    });
  }
  const perShard = routed.batches.map((b) => b.length);
  const base = { table: routed.table, local: routed.local, perShard, bad: routed.bad };
  if (routed.bad.length > 0 && !opts.skipBadRows) return { ...base, inserted: 0, ok: false };
  // Client text is also judged by ClickHouse itself, as one batch, before any shard commits: what
  // the check above cannot tell (a Decimal's range, a date's words, an engine's own rules) is its.
  if (routed.texts) await checkBatch(jsonData(routed.texts, routed.lines), routed.local, topo, getAccess);
  const batches = routed.batches.map((rows, i) => ({ rows, lines: routed.lines[i]!, ...(routed.texts ? { texts: routed.texts[i]! } : {}) }));
  const write = await writeRouted(batches, getAccess, topo.shards, routed.local).finally(() => opts.onWritten?.(routed.table));
  return { ...base, inserted: write.committedRows, write, ok: write.ok && routed.bad.length === 0 };
}
