// GLOBAL IN / GLOBAL JOIN, as ClickHouse's Distributed engine runs them: the right side runs ONCE on the
// coordinator (opts.runSubquery, which may itself scatter over another configured table); its
// rows travel with every shard query as an external table named `_data_<hash of the printed
// subquery>`, so identical subqueries run once. The shard text names the table instead of the
// subquery and loses the GLOBAL keyword (the data is already there). Transfer limits apply per
// shipped table, like ClickHouse's SizeLimits on each materialized subquery. A client's external
// data (PlanOptions.external) travels the same way, under its own name.
import { createHash } from 'node:crypto';
import type { Expr, FunctionCall, SelectQuery, SelectStatement, TableExpr, TableRef } from '../sql/ast.js';
import { printSelect } from '../sql/print.js';
import { formatForName } from '../sql/names.js';
import type { ColumnMeta, ExternalTable } from '../clickhouse/port.js';
import { ScatterError } from '../errors.js';
import { errorAt } from './position.js';
import type { Topology } from '../config/schema.js';
import type { SubqueryRunner } from './types.js';
import { isGlobalInName, tablesRead } from './analyze.js';
import { expressionNames } from './in-table.js';
import { IN_OPERATOR_NAMES } from '../sql/in-operators.js';
import { lookupTable, refName, splitName } from './tables.js';
import { mapClausesShared, rewriteExpr } from '../sql/visit.js';
import type { PlannerSettings } from './settings.js';
import { INVOKE_PAYLOAD_LIMIT_BYTES, MAX_SHIPPED_BYTES } from '../protocol/shard-wire.js';
import { readBackQuery, type ReadBackColumn } from './read-back.js';
import { distributedTables } from './two-stage/reads.js';
import { UNSORTABLE_TYPE } from '../partials/sort-key-types.js';

export interface Materialized {
  table: ExternalTable;
  /** False when no runner was given (explain without running): rows are unknown. */
  materialized: boolean;
  /** The statement that produced it (as sent to the runner). */
  source: SelectStatement;
  /** How the shards read its columns back (values that travel as states, two columns of one name), where they must. */
  readBack?: ReadBackColumn[];
}

export interface GlobalsResult {
  query: SelectQuery;
  external: Map<string, Materialized>;
  truncated: string[];
  /** The names the query may read a shipped JOIN's columns by (`r.a`, `a`) whose type ClickHouse refuses as a sort key. */
  unsortable: Set<string>;
}

/** The columns of a shipped JOIN table, as the query reads them, whose values no shard can sort by. */
function unsortableColumns(m: Materialized): string[] {
  const typeOf = new Map(m.table.columns.map((c) => [c.name, c.type]));
  const read = m.readBack ? m.readBack.map((c) => ({ name: c.name, type: typeOf.get(c.from) ?? '' })) : m.table.columns;
  return read.filter((c) => UNSORTABLE_TYPE.test(c.type)).map((c) => c.name);
}

/** `_data_<decimal 64-bit hash>` of the printed subquery: equal text, equal name, one run. */
export function externalName(sql: string): string {
  const h = createHash('sha256').update(sql).digest();
  return `_data_${h.readBigUInt64BE(0).toString()}`;
}

function selectAllFrom(database: string, table: string): SelectQuery {
  return {
    kind: 'select',
    distinct: false,
    columns: [{ kind: 'asterisk' }],
    from: { table: { kind: 'table', ...(database ? { database } : {}), table }, joins: [] },
    withTotals: false,
  };
}

/**
 * The right side of a GLOBAL IN is a set: duplicates carry nothing, so the statement that runs is
 * `SELECT DISTINCT ...` (fewer rows shipped to every shard, and the transfer limits count
 * distinct values). Not when LIMIT / LIMIT BY / WITH TOTALS would make DISTINCT change which
 * values are in the set, and never for GLOBAL JOIN (row multiplicity matters there).
 */
export function asSetQuery(stmt: SelectStatement): SelectStatement {
  if (stmt.kind !== 'select' || stmt.distinct || stmt.limit || stmt.limitBy || stmt.withTotals) return stmt;
  return { ...stmt, distinct: true };
}

/**
 * The statement that runs for a GLOBAL right side, with `LIMIT maxRowsToTransfer + 1` when it has no
 * LIMIT of its own: one row past the limit is enough to know it is exceeded (TRANSFER_LIMIT 413), and
 * no shard reads or ships more than that. Without it every shard returns its whole share first, and a
 * large one fails as TOO_LARGE (over the Lambda response limit) before the limit can be applied.
 */
export function boundedForTransfer(stmt: SelectStatement, maxRows: number): SelectStatement {
  if (maxRows <= 0 || stmt.kind !== 'select' || stmt.limit || stmt.limitBy || stmt.withTotals) return stmt;
  return { ...stmt, limit: { limit: { kind: 'literal', type: 'integer', value: String(maxRows + 1) } } };
}

function jsonBytes(row: Record<string, unknown>): number {
  return Buffer.byteLength(JSON.stringify(row));
}

/**
 * Apply max_rows/bytes_to_transfer to one shipped table of `count` rows, the i-th `sizeOf(i)` bytes:
 * how many stay, or a throw (413) with transfer_overflow_mode = 'throw'; a cut is said in `truncated`.
 */
function transferKeep(
  what: { refused: string; cut: string },
  count: number,
  sizeOf: (i: number) => number,
  s: Pick<PlannerSettings, 'maxRowsToTransfer' | 'maxBytesToTransfer' | 'transferOverflowMode'>,
  truncated: string[],
): number {
  let keep = count;
  let why = '';
  if (s.maxRowsToTransfer > 0 && count > s.maxRowsToTransfer) {
    keep = s.maxRowsToTransfer;
    why = `${count} rows exceed max_rows_to_transfer = ${s.maxRowsToTransfer}`;
  }
  if (s.maxBytesToTransfer > 0) {
    // Size of the rows as a JSON array: brackets, commas, rows.
    let bytes = 2;
    for (let i = 0; i < keep; i++) {
      const b = sizeOf(i) + (i > 0 ? 1 : 0);
      if (bytes + b > s.maxBytesToTransfer) {
        keep = i;
        why = `the rows exceed max_bytes_to_transfer = ${s.maxBytesToTransfer} bytes (as JSON)`;
        break;
      }
      bytes += b;
    }
  }
  if (keep === count) return count;
  if (s.transferOverflowMode === 'throw') {
    throw new ScatterError('TRANSFER_LIMIT', `${what.refused}: ${why} (transfer_overflow_mode = 'throw')`, { status: 413 });
  }
  truncated.push(`${what.cut}: truncated to ${keep} of ${count} rows: ${why} (transfer_overflow_mode = 'break')`);
  return keep;
}

/** Apply max_rows/bytes_to_transfer to one shipped table: throw (413) or truncate and say so. */
export function enforceTransferLimits(
  name: string,
  rows: Record<string, unknown>[],
  s: Pick<PlannerSettings, 'maxRowsToTransfer' | 'maxBytesToTransfer' | 'transferOverflowMode'>,
  truncated: string[],
): Record<string, unknown>[] {
  const keep = transferKeep({ refused: `GLOBAL subquery data ${name}`, cut: name }, rows.length, (i) => jsonBytes(rows[i]!), s, truncated);
  return keep === rows.length ? rows : rows.slice(0, keep);
}

/** The same limits over a client's external table, its rows as JSONEachRow lines (parsed by an engine, shipped as they are). */
export function limitExternal(
  t: ExternalTable,
  s: Pick<PlannerSettings, 'maxRowsToTransfer' | 'maxBytesToTransfer' | 'transferOverflowMode'>,
  truncated: string[],
): ExternalTable {
  const text = t.jsonEachRow ?? '';
  const lines = text === '' ? [] : text.split('\n');
  const what = `external table ${t.name}`;
  const keep = transferKeep({ refused: what, cut: what }, lines.length, (i) => Buffer.byteLength(lines[i]!), s, truncated);
  return keep === lines.length ? t : { ...t, jsonEachRow: lines.slice(0, keep).join('\n') };
}

/** The same limits over a scalar's value shipped as the engine's TabSeparated rows (each ending in a newline). */
function limitTsv(
  t: ExternalTable,
  s: Pick<PlannerSettings, 'maxRowsToTransfer' | 'maxBytesToTransfer' | 'transferOverflowMode'>,
  truncated: string[],
): ExternalTable {
  const data = t.data!;
  const body = Buffer.from(data.base64, 'base64');
  const rows: Buffer[] = [];
  for (let at = 0; at < body.length; ) {
    const end = body.indexOf(0x0a, at) + 1 || body.length;
    rows.push(body.subarray(at, end));
    at = end;
  }
  const what = { refused: `GLOBAL subquery data ${t.name}`, cut: t.name };
  const keep = transferKeep(what, rows.length, (i) => rows[i]!.length, s, truncated);
  return keep === rows.length ? t : { ...t, data: { ...data, base64: Buffer.concat(rows.slice(0, keep)).toString('base64') } };
}

/**
 * The shipped data travels inside every shard request, and a Lambda Invoke request is at most 6 MB:
 * above that every shard's invocation would be refused (413 from Lambda), on every replica and every
 * retry. So it is a 413 here, before any shard is asked, naming the size, rather than a query whose
 * shards all fail.
 */
export function assertShippable(external: ReadonlyMap<string, Materialized>): void {
  let bytes = 0;
  const names: string[] = [];
  for (const [name, m] of external) {
    if (!m.materialized) continue;
    bytes += Buffer.byteLength(JSON.stringify(m.table));
    names.push(name);
  }
  if (bytes <= MAX_SHIPPED_BYTES) return;
  throw new ScatterError(
    'TRANSFER_LIMIT',
    `GLOBAL subquery data ${names.join(', ')} is ${bytes} bytes as JSON; it travels in every shard request, and a Lambda request carries at most ` +
      `6 MB (${INVOKE_PAYLOAD_LIMIT_BYTES} bytes, ${INVOKE_PAYLOAD_LIMIT_BYTES - MAX_SHIPPED_BYTES} of them kept for the query itself). ` +
      'Narrow the subquery (filter it, select fewer or shorter columns), or set max_bytes_to_transfer',
    { status: 413 },
  );
}

/**
 * A set or a scalar is read by position, so its columns travel as `c1, c2, ...`: a subquery's own names
 * (`avg(qty)`, `toInt8(ifNull(age, 0))`) cannot be written in every server's external-table structure
 * (ClickHouse 18.16 splits it on commas and spaces). A JOIN's columns are referenced by name and keep theirs.
 */
function positionalColumns(name: string, meta: ColumnMeta[], rows: Record<string, unknown>[]): ExternalTable {
  const columns = meta.map((c, i) => ({ ...c, name: `c${i + 1}` }));
  if (meta.every((c, i) => c.name === columns[i]!.name)) return { name, columns, rows };
  return {
    name,
    columns,
    rows: rows.map((r) => {
      const out: Record<string, unknown> = {};
      meta.forEach((c, i) => {
        out[columns[i]!.name] = r[c.name];
      });
      return out;
    }),
  };
}

/** Rows as the engine wrote them (TabSeparated), the columns of a set or a scalar by position as a set's, a JOIN's by name. */
function tsvTable(name: string, meta: ColumnMeta[], body: Buffer, positional: boolean): ExternalTable {
  const columns = positional ? meta.map((c, i) => ({ ...c, name: `c${i + 1}` })) : meta;
  return { name, columns, rows: [], data: { format: 'TabSeparated', base64: body.toString('base64') } };
}

/** The read-back of a table shipped by position: each column by its position's name. */
function positionalReadBack(meta: ColumnMeta[], readBack: ReadBackColumn[]): ReadBackColumn[] {
  return readBack.map((c, i) => ({ ...c, from: `c${meta.findIndex((m) => m.name === c.from) + 1}`, name: `c${i + 1}` }));
}

/** joined_subquery_requires_alias, ClickHouse's default 1 unless the query sets it off. */
function requiresAlias(settings: PlannerSettings): boolean {
  const v = settings.forward.joined_subquery_requires_alias;
  return v === undefined || !['0', 'false'].includes(String(v).toLowerCase());
}

export async function materializeGlobals(
  q: SelectQuery,
  topo: Topology,
  settings: PlannerSettings,
  runSubquery: SubqueryRunner | undefined,
  clientTables: readonly ExternalTable[] = [],
): Promise<GlobalsResult> {
  // Pass 1 (sync): find every GLOBAL right side, name it, remember what to run.
  const wanted = new Map<string, SelectStatement>();
  const byPosition = new Set<string>();
  const scalars = new Set<string>();
  const nameFor = (stmt: SelectStatement, role: 'set' | 'scalar' | 'join'): string => {
    const name = externalName((role === 'scalar' ? 'scalar ' : '') + printSelect(stmt));
    if (!wanted.has(name)) wanted.set(name, stmt);
    if (role !== 'join') byPosition.add(name);
    if (role === 'scalar') scalars.add(name);
    return name;
  };
  const defined = expressionNames(q);
  // Where each shipped table is read, for the tables whose columns the shards must read back (read-back.ts).
  const reads: Array<{ name: string; read: (q: SelectQuery) => void }> = [];
  // Each shipped JOIN table and the alias the query reads its columns by.
  const joined: Array<{ name: string; alias: string | undefined }> = [];

  const rewritten = mapClausesShared(q, (e) =>
    rewriteExpr(e, function rewrite(x): Expr | undefined {
      // The right side of a local IN is a set each shard reads itself, not a scalar.
      if (x.kind === 'function' && IN_OPERATOR_NAMES.has(x.name) && !isGlobalInName(x.name) && x.args[1]?.kind === 'subquery') {
        return { ...x, args: [rewriteExpr(x.args[0]!, rewrite), x.args[1]] };
      }
      if (x.kind === 'subquery') {
        // (Its shape is its own planning's to judge: one over a distributed table is not checked here.)
        if (distributedTables(x.query, topo).length === 0 && tablesRead(x.query, topo, defined).length === 0) return undefined;
        // A scalar subquery over a distributed table: ClickHouse's initiator computes it once and sends
        // the value with the query. Here its rows ship as a table the shard reads back in place of the
        // subquery, so the value keeps its exact type. Two rows are enough: a second one is ClickHouse's
        // own error (more than one row in a scalar subquery), raised by the shard as it would be.
        const name = nameFor(boundedForTransfer(x.query, 1), 'scalar');
        const query = selectAllFrom('', name);
        reads.push({ name, read: (r) => (query.from!.table = { kind: 'subqueryTable', query: r }) });
        return { ...x, query };
      }
      if (x.kind !== 'function' || !isGlobalInName(x.name) || x.args.length !== 2) return undefined;
      const rhs = x.args[1]!;
      let stmt: SelectStatement | undefined;
      if (rhs.kind === 'subquery') stmt = rhs.query;
      else if (rhs.kind === 'column') {
        const b = lookupTable(topo, rhs.parts.join('.'));
        if (b) {
          const d = splitName(b.distributed);
          stmt = selectAllFrom(d.database, d.table);
        }
      }
      if (!stmt) return undefined; // analyze made literal-set GLOBAL INs plain already
      stmt = asSetQuery(stmt);
      const lhs = rewriteExpr(x.args[0]!, () => undefined);
      const out: FunctionCall = {
        ...x,
        nameAs: x.nameAs ?? formatForName(x),
        name: x.name === 'globalIn' ? 'in' : 'notIn',
        args: [lhs, { kind: 'column', parts: [nameFor(stmt, 'set')], ...(rhs.pos ? { pos: rhs.pos } : {}) }],
      };
      if (x.operator) out.operator = x.name === 'globalIn' ? 'IN' : 'NOT IN';
      const set = out.args[1]!;
      reads.push({
        name: (set as { parts: string[] }).parts[0]!,
        read: (r) => (out.args[1] = { kind: 'subquery', query: r, ...(set.pos ? { pos: set.pos } : {}) }),
      });
      return out;
    }),
  );
  if (rewritten.from) {
    rewritten.from.joins = rewritten.from.joins.map((j) => {
      if (!j.global) return j;
      let stmt: SelectStatement;
      let alias: string | undefined;
      if (j.table.kind === 'subqueryTable') {
        stmt = j.table.query;
        alias = j.table.alias;
        // Shipped as a named table, the engines never see the subquery: ClickHouse's alias rule is checked here.
        if (!alias && requiresAlias(settings))
          throw errorAt(
            'QUERY_ERROR',
            'No alias for subquery or table function in JOIN (set joined_subquery_requires_alias = 0 to disable restriction)',
            j.table,
            {
              clickhouse: { code: 206, name: 'ALIAS_REQUIRED' },
            },
          );
      } else if (j.table.kind === 'table') {
        const b = lookupTable(topo, refName(j.table));
        if (!b) return j; // analyze resolved every table; unreachable
        const d = splitName(b.distributed);
        stmt = selectAllFrom(d.database, d.table);
        alias = j.table.alias ?? j.table.table; // keep `dist2.col` references valid
      } else return j;
      const ref: TableRef = { kind: 'table', table: nameFor(stmt, 'join'), ...(alias ? { alias } : {}), ...(j.table.pos ? { pos: j.table.pos } : {}) };
      const out = { ...j, global: false, table: ref as TableExpr };
      joined.push({ name: ref.table, alias });
      reads.push({
        name: ref.table,
        read: (r) => (out.table = { kind: 'subqueryTable', query: r, ...(alias ? { alias } : {}), ...(ref.pos ? { pos: ref.pos } : {}) }),
      });
      return out;
    });
  }

  // Pass 2: run each distinct right side once, concurrently, and apply the transfer limits.
  const external = new Map<string, Materialized>();
  const truncated: string[] = [];
  await Promise.all(
    [...wanted].map(async ([name, stmt]) => {
      if (!runSubquery) {
        external.set(name, { table: { name, columns: [], rows: [] }, materialized: false, source: stmt });
        return;
      }
      // A scalar's value is read back by no one but the engines, so it may travel as their bytes.
      const res = await runSubquery(boundedForTransfer(stmt, settings.maxRowsToTransfer), { bytes: scalars.has(name), positional: byPosition.has(name) });
      const positional = byPosition.has(name);
      const table = res.tsv
        ? tsvTable(name, res.meta, res.tsv.body, positional)
        : positional
          ? positionalColumns(name, res.meta, res.rows)
          : { name, columns: res.meta, rows: res.rows };
      const readBack = res.readBack && (positional ? positionalReadBack(res.meta, res.readBack) : res.readBack);
      external.set(name, { table, materialized: true, source: stmt, ...(readBack ? { readBack } : {}) });
    }),
  );
  for (const { name, read } of reads) {
    const readBack = external.get(name)?.readBack;
    if (readBack) read(readBackQuery(name, readBack));
  }
  // Limits in a stable order (the map's insertion order above depends on completion order).
  for (const name of wanted.keys()) {
    const m = external.get(name)!;
    if (!m.materialized) continue;
    if (m.table.data) m.table = limitTsv(m.table, settings, truncated);
    else m.table.rows = enforceTransferLimits(name, m.table.rows, settings, truncated);
  }
  // The request's external data travels beside them, under the same limits, to every shard.
  const ordered = new Map<string, Materialized>(
    clientTables.map((t) => [t.name, { table: limitExternal(t, settings, truncated), materialized: true, source: selectAllFrom('', t.name) }]),
  );
  for (const n of wanted.keys()) ordered.set(n, external.get(n)!);
  assertShippable(ordered);
  const unsortable = new Set<string>();
  for (const { name, alias } of joined) {
    const m = external.get(name);
    if (m?.materialized) for (const c of unsortableColumns(m)) for (const n of alias ? [c, `${alias}.${c}`] : [c]) unsortable.add(n);
  }
  return { query: rewritten, external: ordered, truncated, unsortable };
}
