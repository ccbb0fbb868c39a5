// Handshake and catalog queries, answered from the topology and one shard. ch-scatter is a
// read-only view: its databases are the configured distributed tables' databases, its tables the
// configured distributed tables, and their columns the local tables' columns as a shard has them.
// Every answer is a SELECT run on one shard's engine, in the requested format, so the bytes are
// ClickHouse's own:
//  - SHOW DATABASES / SHOW TABLES: SELECT name FROM <view> ...;
//  - DESCRIBE TABLE d.t: DESCRIBE TABLE <local table> on the shard (the same columns);
//  - EXISTS TABLE d.t: EXISTS TABLE <local table>, or a 0 for a name that is not configured;
//  - a SELECT that reads no distributed table (SELECT 1, version(), timezone(), system.* queries):
//    the statement itself, with system.databases / tables / columns replaced by views of the
//    configured tables, currentDatabase() and currentUser() by the request's values.
// Other system tables are answered only when they describe the engine, not the cluster (settings,
// functions, formats...); system.clusters, processes, query_log and the like are not shown.
import type { Topology } from '../config/schema.js';
import { qualifyTable } from '../config/schema.js';
import type { Expr, SelectStatement, TableExpr } from '../sql/ast.js';
import { parseSelect } from '../sql/parse.js';
import { printSelect } from '../sql/print.js';
import { quoteStringLiteral, backquote } from '../sql/quote.js';
import { forEachSettingsClause, mapStatement, walkStatement } from '../sql/visit.js';
import { checkReach } from '../plan/reach-check.js';
import { ChHttpError } from './exception.js';
import { checkLowerable } from '../plan/setting-values.js';
import { settingValueOf } from '../plan/settings.js';
import type { RawQuery } from './types.js';
import { HANDSHAKE_REVISION } from './native-revision.js';
import type { Statement, TableName } from './statement.js';

/** System tables passed to the shard as they are: they describe the engine, not the cluster. */
const ENGINE_TABLES = new Set([
  'one',
  'numbers',
  'numbers_mt',
  'zeros',
  'settings',
  'functions',
  'table_functions',
  'formats',
  'data_type_families',
  'table_engines',
  'database_engines',
  'time_zones',
  'collations',
  'aggregate_function_combinators',
  'build_options',
  'contributors',
  'keywords',
]);
const VIEWS = new Set(['databases', 'tables', 'columns']);

/**
 * Caps on every catalog query, beside the request's one deadline: a read of system.numbers or zeros
 * stops at them with ClickHouse's own 158 TOO_MANY_ROWS / 307 TOO_MANY_BYTES in milliseconds, instead
 * of running to the deadline. A catalog answer needs a small part of either.
 */
export const CATALOG_LIMITS: Readonly<Record<string, number>> = { max_rows_to_read: 10_000_000, max_bytes_to_read: 1024 * 1024 * 1024 };

/** A SETTINGS clause of a catalog query (any level) may lower the caps and the configured ceilings, never lift them. */
export function checkCatalogSettings(stmt: SelectStatement, topo: Topology): void {
  const ceilings: Record<string, number> = { ...topo.query.limitCeilings };
  for (const [k, v] of Object.entries(CATALOG_LIMITS)) ceilings[k] = Math.min(v, ceilings[k] ?? v);
  forEachSettingsClause(stmt, (items) => {
    for (const item of items) checkLowerable(item.name, settingValueOf(item.value, item.name), ceilings, item.value);
  });
}

export interface CatalogContext {
  topo: Topology;
  /** The request's database (for unqualified names), default 'default'. */
  database: string;
  user: string;
  /** The shards' version, answered for version() (the engine's own call is not the client's to make). */
  version?: string;
  raw: RawQuery;
}

interface Configured {
  distDb: string;
  distTable: string;
  localDb: string;
  localTable: string;
}

function configured(topo: Topology): Configured[] {
  return Object.entries(topo.tables).map(([name, cfg]) => {
    const [distDb, distTable] = split(qualifyTable(name));
    const [localDb, localTable] = split(qualifyTable(cfg.local));
    return { distDb, distTable, localDb, localTable };
  });
}
function split(q: string): [string, string] {
  const i = q.indexOf('.');
  return [q.slice(0, i), q.slice(i + 1)];
}
const s = (v: string) => quoteStringLiteral(v);

/** The configured table a name means (unqualified: in the request's database), or undefined. */
export function findTable(topo: Topology, t: TableName, database: string): Configured | undefined {
  const db = t.database ?? database;
  return configured(topo).find((c) => c.distDb === db && c.distTable === t.table);
}

/** Column names of a system table on the shard (they differ between versions), cached per shard engine. */
const systemColumns = new WeakMap<RawQuery, Map<string, Promise<string[]>>>();
function columnsOf(raw: RawQuery, table: string): Promise<string[]> {
  let m = systemColumns.get(raw);
  if (!m) {
    m = new Map();
    systemColumns.set(raw, m);
  }
  let p = m.get(table);
  if (!p) {
    p = raw(`SELECT name FROM system.columns WHERE database = 'system' AND table = ${s(table)}`, { format: 'JSONEachRow' }).then((r) =>
      r.bytes
        .toString('utf8')
        .split('\n')
        .filter((l) => l.trim() !== '')
        .map((l) => String((JSON.parse(l) as { name: string }).name)),
    );
    p.catch(() => m!.delete(table));
    m.set(table, p);
  }
  return p;
}

/** SELECT text of a view: the shard's own system table rows for each local table, renamed to the distributed one. */
async function viewSql(ctx: CatalogContext, which: 'databases' | 'tables' | 'columns'): Promise<string> {
  const tables = configured(ctx.topo);
  if (which === 'databases') {
    const dbs = [...new Set(tables.map((t) => t.distDb))].sort();
    return `SELECT arrayJoin([${dbs.map(s).join(', ')}]) AS name, 'Distributed' AS engine, '' AS data_path, '' AS metadata_path, '' AS comment`;
  }
  const cols = await columnsOf(ctx.raw, which);
  const parts = tables.map((t) => {
    const over: Record<string, string> =
      which === 'tables' ? { database: s(t.distDb), name: s(t.distTable), engine: "'Distributed'" } : { database: s(t.distDb), table: s(t.distTable) };
    const list = cols.map((c) => (over[c] !== undefined ? `${over[c]} AS ${backquote(c)}` : backquote(c))).join(', ');
    const nameCol = which === 'tables' ? 'name' : 'table';
    // The filter runs in an inner query: in ClickHouse an alias of the outer list (`'x' AS name`)
    // would shadow the column it filters on.
    const inner = `SELECT ${cols.map(backquote).join(', ')} FROM system.${which} WHERE database = ${s(t.localDb)} AND ${nameCol} = ${s(t.localTable)}`;
    return `SELECT ${list} FROM (${inner})`;
  });
  return parts.join(' UNION ALL ');
}

/** True when a parsed SELECT reads no configured distributed table (FROM-less, or system tables only). */
export function isCatalogSelect(stmt: SelectStatement): boolean {
  let distributed = false;
  const visitFrom = (q: SelectStatement) => {
    for (const sel of q.kind === 'union' ? q.selects : [q]) {
      if (!sel.from) continue;
      for (const t of [sel.from.table, ...sel.from.joins.map((j) => j.table)]) {
        if (t.kind === 'table') {
          if ((t.database ?? '').toLowerCase() !== 'system') distributed = true;
        } else if (t.kind === 'subqueryTable') visitFrom(t.query);
        else distributed = true; // table functions go to the distributed path (which refuses them by name)
      }
    }
  };
  visitFrom(stmt);
  walkStatement(
    stmt,
    (e) => {
      if (e.kind === 'subquery') visitFrom(e.query);
      return undefined;
    },
    { subqueries: true },
  );
  return !distributed;
}

const CONTEXT_FUNCTIONS: Record<string, 'database' | 'user' | 'version'> = {
  currentdatabase: 'database',
  database: 'database',
  currentuser: 'user',
  user: 'user',
  current_user: 'user',
  version: 'version',
};

/**
 * The drivers' handshake (clickhouse-go's `SELECT displayName(), version(), revision(), timezone()`):
 * no shard host's name, and as revision the protocol revision whose Native framing this interface
 * writes (clickhouse-go decodes later answers at the revision it reads here; native-revision.ts).
 */
const HANDSHAKE_VALUES: Record<string, Expr> = {
  displayname: { kind: 'literal', type: 'string', value: 'ch-scatter' },
  revision: { kind: 'function', name: 'toUInt32', args: [{ kind: 'literal', type: 'integer', value: String(HANDSHAKE_REVISION) }] },
};

/** The catalog SELECT as the shard runs it: views in place of system tables, context functions as values. */
async function rewriteSelect(ctx: CatalogContext, stmt: SelectStatement): Promise<string> {
  const views = new Map<string, SelectStatement>();
  const replaceTable = async (t: TableExpr): Promise<TableExpr> => {
    if (t.kind === 'subqueryTable') return { ...t, query: await rewriteDeep(t.query) };
    if (t.kind !== 'table') return t;
    if ((t.database ?? '').toLowerCase() !== 'system') return t;
    const name = t.table.toLowerCase();
    if (ENGINE_TABLES.has(name)) return t;
    if (!VIEWS.has(name))
      throw new ChHttpError(
        60,
        `Table system.${t.table} does not exist in ch-scatter's catalog (it answers system.databases, tables, columns, settings, functions and the engine's own tables)` +
          (t.pos ? ` (line ${t.pos.line}, column ${t.pos.column})` : ''),
      );
    let v = views.get(name);
    if (!v) {
      v = parseSelect(await viewSql(ctx, name as 'databases' | 'tables' | 'columns'));
      views.set(name, v);
    }
    return { kind: 'subqueryTable', query: v, alias: t.alias ?? t.table, ...(t.pos ? { pos: t.pos } : {}) };
  };
  const rewriteTables = async (q: SelectStatement): Promise<SelectStatement> => {
    const selects = q.kind === 'union' ? q.selects : [q];
    const out = [];
    for (const sel of selects) {
      if (!sel.from) {
        out.push(sel);
        continue;
      }
      const table = await replaceTable(sel.from.table);
      const joins = [];
      for (const j of sel.from.joins) joins.push({ ...j, table: await replaceTable(j.table) });
      out.push({ ...sel, from: { ...sel.from, table, joins } });
    }
    return q.kind === 'union' ? { ...q, selects: out } : out[0]!;
  };
  // Every depth: the subqueries of expressions (copied), then the FROM/JOIN tables, whose subqueries
  // are rewritten the same way; the views go in last, so the reach check knows them as the runtime's.
  const rewriteDeep = async (q: SelectStatement): Promise<SelectStatement> => {
    const pending: Promise<void>[] = [];
    const mapped = mapStatement(q, (e) => {
      if (e.kind !== 'subquery') return undefined;
      const node = { ...e };
      pending.push(
        rewriteDeep(e.query).then((x) => {
          node.query = x;
        }),
      );
      return node;
    });
    await Promise.all(pending);
    return rewriteTables(mapped);
  };
  const values = { database: ctx.database, user: ctx.user, version: ctx.version };
  const withValues = mapStatement(
    stmt,
    (e: Expr) => {
      if (e.kind !== 'function' || e.args.length !== 0) return undefined;
      const fixed = HANDSHAKE_VALUES[e.name.toLowerCase()];
      if (fixed) return { ...fixed, alias: e.alias ?? `${e.name}()` };
      const which = CONTEXT_FUNCTIONS[e.name.toLowerCase()];
      const value = which && values[which];
      if (value === undefined) return undefined;
      return { kind: 'literal', type: 'string', value, alias: e.alias ?? `${e.name}()` };
    },
    { subqueries: true },
  );
  const rewritten = await rewriteDeep(withValues);
  checkReach(rewritten, { what: 'the catalog engine', tables: new Set(), systemTables: ENGINE_TABLES, trusted: new Set(views.values()) });
  return printSelect(rewritten);
}

/** The SQL the shard runs for a catalog statement (without FORMAT: the format travels beside it). */
export async function catalogSql(ctx: CatalogContext, st: Statement, select?: SelectStatement): Promise<string> {
  switch (st.kind) {
    case 'select':
      return rewriteSelect(ctx, select!);
    case 'showDatabases':
      return `SELECT name FROM (${await viewSql(ctx, 'databases')})${st.like !== undefined ? ` WHERE name LIKE ${s(st.like)}` : ''} ORDER BY name`;
    case 'showTables': {
      const db = st.database ?? ctx.database;
      const like = st.like !== undefined ? ` AND name LIKE ${s(st.like)}` : '';
      if (!configured(ctx.topo).some((t) => t.distDb === db)) throw new ChHttpError(81, `Database ${db} does not exist`);
      return `SELECT name FROM (${await viewSql(ctx, 'tables')}) WHERE database = ${s(db)}${like} ORDER BY name`;
    }
    case 'describe': {
      const t = findTable(ctx.topo, st.table, ctx.database);
      if (!t) throw unknownTable(st.table, ctx.database);
      return `DESCRIBE TABLE ${backquote(t.localDb)}.${backquote(t.localTable)}`;
    }
    case 'exists': {
      const t = findTable(ctx.topo, st.table, ctx.database);
      return t ? `EXISTS TABLE ${backquote(t.localDb)}.${backquote(t.localTable)}` : 'SELECT toUInt8(0) AS result';
    }
    case 'insert':
      throw new ChHttpError(49, 'an INSERT is not a catalog statement');
  }
}

export function unknownTable(t: TableName, database: string): ChHttpError {
  return new ChHttpError(60, `Table ${t.database ?? database}.${t.table} does not exist`);
}
