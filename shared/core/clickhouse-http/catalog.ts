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
import type { Expr, SelectQuery, SelectStatement, TableExpr } from '../sql/ast.js';
import { parseSelect } from '../sql/parse.js';
import { printSelect } from '../sql/print.js';
import { quoteStringLiteral, backquote } from '../sql/quote.js';
import { forEachSettingsClause, mapClausesShared, mapStatement, rewriteExpr, walkStatement, fromTables } from '../sql/visit.js';
import { checkReach } from '../plan/reach-check.js';
import { CONSTANT_TABLE_FUNCTIONS } from '../plan/constant-tables.js';
import { recursiveCtes } from '../plan/recursive-ctes.js';
import { withContextValues as contextValues } from '../plan/context-values.js';
import { ChHttpError } from './exception.js';
import { checkLowerable } from '../plan/setting-values.js';
import { settingValueOf } from '../plan/settings.js';
import type { RawQuery } from './types.js';
import { HANDSHAKE_REVISION } from './native-revision.js';
import { changeableSettings } from '../plan/setting-fate.js';
import type { TableSizes } from './table-sizes.js';
import type { Statement, TableName } from './statement.js';

/** System tables passed to the shard as they are: they describe the engine, not the cluster. */
const ENGINE_TABLES = new Set([
  'one',
  'numbers',
  'numbers_mt',
  'zeros',
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
/** Table functions that read only their own arguments (JDBC's getTypeInfo joins `VALUES (...)`; `numbers(10)`), bounded by the reach check. */
const CATALOG_TABLE_FUNCTIONS: ReadonlySet<string> = CONSTANT_TABLE_FUNCTIONS;
/** System tables answered by a view of ch-scatter's own (viewSql). */
type ViewName = 'databases' | 'tables' | 'columns' | 'settings' | 'parts';
const VIEWS: ReadonlySet<string> = new Set<ViewName>(['databases', 'tables', 'columns', 'settings', 'parts']);
/** The views a client names; `parts` (empty) serves only information_schema's own definitions. */
const CLIENT_VIEWS: ReadonlySet<string> = new Set<ViewName>(['databases', 'tables', 'columns', 'settings']);
/** information_schema's views (both databases, both cases, as ClickHouse has them): its definitions over the views above. */
const INFO_SCHEMA_VIEWS = new Set(['schemata', 'tables', 'columns', 'views']);
/** information_schema's views by every name a client may use, for the reach check. */
const INFO_SCHEMA_NAMES: ReadonlySet<string> = new Set(
  ['information_schema', 'INFORMATION_SCHEMA'].flatMap((db) => [...INFO_SCHEMA_VIEWS].flatMap((v) => [`${db}.${v}`, `${db}.${v.toUpperCase()}`])),
);
const isInfoSchema = (db: string | undefined) => db === 'information_schema' || db === 'INFORMATION_SCHEMA';
const infoSchemaView = (t: { database?: string; table: string }): string | undefined =>
  isInfoSchema(t.database) && (t.table === t.table.toLowerCase() || t.table === t.table.toUpperCase()) && INFO_SCHEMA_VIEWS.has(t.table.toLowerCase())
    ? t.table.toLowerCase()
    : undefined;

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
  /** Sizes over every shard, asked only when a query reads system.tables. */
  sizes?: () => Promise<TableSizes | undefined>;
  /** The request's external data, by name: the engine that answers holds it. */
  external?: ReadonlySet<string>;
}

interface Configured {
  distDb: string;
  distTable: string;
  localDb: string;
  localTable: string;
  /** The engine clause of the distributed table, as ClickHouse writes it in system.tables.engine_full. */
  engineFull: string;
}

function configured(topo: Topology): Configured[] {
  return Object.entries(topo.tables).map(([name, cfg]) => {
    const [distDb, distTable] = split(qualifyTable(name));
    const [localDb, localTable] = split(qualifyTable(cfg.local));
    const key = backquoteIfNeeded(cfg.shardingKey.column);
    const expr = cfg.shardingKey.function === 'identity' ? key : `${cfg.shardingKey.function}(${key})`;
    const engineFull = `Distributed(${[topo.cluster, localDb, localTable].map(s).join(', ')}, ${expr})`;
    return { distDb, distTable, localDb, localTable, engineFull };
  });
}
const backquoteIfNeeded = (name: string) => (/^[A-Za-z_][A-Za-z0-9_]*$/.test(name) ? name : backquote(name));
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

/** A Distributed table has no keys of its own: ClickHouse leaves these empty (JDBC's getPrimaryKeys reads primary_key). */
const DISTRIBUTED_KEYS = { primary_key: "''", sorting_key: "''", partition_key: "''", sampling_key: "''" };

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

/**
 * SELECT text of a view: the shard's own system table rows for each local table, renamed to the
 * distributed one, with every column the engine has (they differ between versions) and what would
 * describe a shard host (paths) blanked.
 */
async function viewSql(ctx: CatalogContext, which: ViewName): Promise<string> {
  const tables = configured(ctx.topo);
  const cols = await columnsOf(ctx.raw, which);
  const list = (over: Record<string, string>) => cols.map((c) => (over[c] !== undefined ? `${over[c]} AS ${backquote(c)}` : backquote(c))).join(', ');
  // An inner query reads the engine's rows: in ClickHouse an alias of the outer list (`'x' AS name`)
  // would shadow the column it filters on or is computed from.
  const inner = (where: string, extra = '') => `SELECT ${cols.map(backquote).join(', ')}${extra} FROM system.${which} WHERE ${where}`;
  const paths = { data_path: "''", metadata_path: "''", data_paths: 'CAST([] AS Array(String))' };
  switch (which) {
    case 'databases': {
      const byDb = new Map<string, string>();
      for (const t of tables) if (!byDb.has(t.distDb)) byDb.set(t.distDb, t.localDb);
      const parts = [...byDb]
        .sort(([a], [b]) => (a < b ? -1 : 1))
        .map(([dist, local]) => `SELECT ${list({ ...paths, name: s(dist) })} FROM (${inner(`name = ${s(local)}`)})`);
      return parts.join(' UNION ALL ');
    }
    case 'tables': {
      const sizes = cols.includes('total_rows') ? await ctx.sizes?.() : undefined;
      const size = (v: bigint | undefined) => `CAST(${v === undefined ? 'NULL' : v.toString()} AS Nullable(UInt64))`;
      return tables
        .map((t) => {
          const sum = sizes?.get(`${t.localDb}.${t.localTable}`);
          const totals: Record<string, string> = cols.includes('total_rows') ? { total_rows: size(sum?.rows), total_bytes: size(sum?.bytes) } : {};
          const engineFull = s(t.engineFull);
          // The local table's column list in its own DDL, under the distributed name and engine.
          const ddl = `concat(${s(`CREATE TABLE ${backquoteIfNeeded(t.distDb)}.${backquoteIfNeeded(t.distTable)} `)}, substring(_ddl, position(_ddl, '('), position(_ddl, ') ENGINE = ') - position(_ddl, '(') + 1), ' ENGINE = ', ${engineFull})`;
          const over = {
            ...paths,
            ...DISTRIBUTED_KEYS,
            ...totals,
            database: s(t.distDb),
            name: s(t.distTable),
            engine: "'Distributed'",
            engine_full: engineFull,
            create_table_query: ddl,
          };
          return `SELECT ${list(over)} FROM (${inner(`database = ${s(t.localDb)} AND name = ${s(t.localTable)}`, ', create_table_query AS _ddl')})`;
        })
        .join(' UNION ALL ');
    }
    case 'columns':
      return tables
        .map(
          (t) =>
            `SELECT ${list({ database: s(t.distDb), table: s(t.distTable) })} FROM (${inner(`database = ${s(t.localDb)} AND table = ${s(t.localTable)}`)})`,
        )
        .join(' UNION ALL ');
    case 'settings': {
      // readonly = 1 for every setting ch-scatter does not take (setting-fate.ts), so drivers that
      // read it (clickhouse-connect) do not send it.
      const changeable = `toUInt8(NOT has([${changeableSettings().map(s).join(', ')}], name))`;
      if (cols.includes('readonly')) return `SELECT ${list({ readonly: changeable })} FROM (${inner('1')})`;
      return `SELECT ${cols.map(backquote).join(', ')}, ${changeable} AS readonly FROM system.settings`;
    }
    case 'parts':
      // Parts are a shard's files: none are shown (information_schema.tables joins them for index sizes).
      return `SELECT ${list(paths)} FROM (${inner('0')})`;
  }
}

/** information_schema's definition of a view on this engine (its own SQL, over its system tables). */
const infoDefinitions = new WeakMap<RawQuery, Map<string, Promise<string>>>();
function infoSchemaSql(raw: RawQuery, name: string): Promise<string> {
  let m = infoDefinitions.get(raw);
  if (!m) {
    m = new Map();
    infoDefinitions.set(raw, m);
  }
  let p = m.get(name);
  if (!p) {
    p = columnsOf(raw, 'tables').then(async (cols) => {
      const missing = () => new ChHttpError(60, `Table information_schema.${name} does not exist: the shards' ClickHouse has no information_schema`);
      if (!cols.includes('as_select')) throw missing();
      const r = await raw(`SELECT as_select FROM system.tables WHERE database = 'information_schema' AND name = ${s(name)}`, { format: 'JSONEachRow' });
      const line = r.bytes.toString('utf8').split('\n')[0];
      if (!line) throw missing();
      return String((JSON.parse(line) as { as_select: string }).as_select);
    });
    p.catch(() => m!.delete(name));
    m.set(name, p);
  }
  return p;
}

/** True when a parsed SELECT reads no configured distributed table (FROM-less, or system tables only). */
export function isCatalogSelect(stmt: SelectStatement): boolean {
  let distributed = false;
  // A name a WITH binds to a subquery (`WITH s AS (SELECT ...) ... FROM s`) reads what that subquery
  // reads, which the walk below visits; it names no table of its own.
  const visitFrom = (q: SelectStatement, ctes: ReadonlySet<string>) => {
    for (const sel of q.kind === 'union' ? q.selects : [q]) {
      const bound = new Set([...ctes, ...(sel.with ?? []).filter((w) => w.cte).map((w) => w.name)]);
      if (!sel.from) continue;
      for (const t of fromTables(sel)) {
        if (t.kind === 'table') {
          if (t.database === undefined && bound.has(t.table)) continue;
          // The request's external data (marked) is read where the statement runs: one engine, as a catalog read.
          if (!t.external && (t.database ?? '').toLowerCase() !== 'system' && !isInfoSchema(t.database)) distributed = true;
        } else if (t.kind === 'subqueryTable') visitFrom(t.query, bound);
        else if (!CATALOG_TABLE_FUNCTIONS.has(t.name.toLowerCase())) distributed = true; // the distributed path refuses them by name
      }
    }
  };
  visitFrom(stmt, new Set());
  // A recursive CTE's body (walked below as a subquery of its WITH) reads its own name.
  const recursive = new Set<string>();
  const collect = (s: SelectStatement) => {
    for (const sel of s.kind === 'union' ? s.selects : [s]) for (const w of recursiveCtes(sel)) recursive.add(w.name);
  };
  collect(stmt);
  walkStatement(
    stmt,
    (e) => {
      if (e.kind === 'subquery') collect(e.query);
      return undefined;
    },
    { subqueries: true },
  );
  walkStatement(
    stmt,
    (e) => {
      if (e.kind === 'subquery') visitFrom(e.query, recursive);
      return undefined;
    },
    { subqueries: true },
  );
  return !distributed;
}

/**
 * The drivers' handshake (clickhouse-go's `SELECT displayName(), version(), revision(), timezone()`):
 * no shard host's name, and as revision the protocol revision whose Native framing this interface
 * writes (clickhouse-go decodes later answers at the revision it reads here; native-revision.ts).
 */
const HANDSHAKE_VALUES: Record<string, Expr> = {
  displayname: { kind: 'literal', type: 'string', value: 'ch-scatter' },
  revision: { kind: 'function', name: 'toUInt32', args: [{ kind: 'literal', type: 'integer', value: String(HANDSHAKE_REVISION) }] },
};

/** The request's context values (plan/context-values.ts) and the drivers' handshake values. */
export function withContextValues(stmt: SelectStatement, ctx: { database: string; user: string; version?: string | undefined }): SelectStatement {
  return contextValues(stmt, ctx, HANDSHAKE_VALUES);
}

/** `db.table.column` references to replaced tables as `<alias>.column`, in one SELECT's own expressions. */
function requalify(sel: SelectQuery, qualified: ReadonlyMap<string, string>): SelectQuery {
  // Shared, not copied: the views keep their identity, which the reach check trusts.
  return mapClausesShared(sel, (x) =>
    rewriteExpr(x, (e) => {
      if (e.kind !== 'column' || e.parts.length !== 3) return undefined;
      const alias = qualified.get(`${e.parts[0]!.toLowerCase()}.${e.parts[1]}`);
      return alias ? { ...e, parts: [alias, e.parts[2]!] } : undefined;
    }),
  );
}

/** The catalog SELECT as the shard runs it: views in place of system tables, context functions as values. */
async function rewriteSelect(ctx: CatalogContext, stmt: SelectStatement): Promise<string> {
  const views = new Map<string, SelectStatement>();
  const infoViews = new Map<string, SelectStatement>();
  const replaceTable = async (t: TableExpr, internal: boolean): Promise<TableExpr> => {
    if (t.kind === 'subqueryTable') return { ...t, query: await rewriteDeep(t.query, internal) };
    if (t.kind !== 'table') return t;
    const at = t.pos ? ` (line ${t.pos.line}, column ${t.pos.column})` : '';
    if (isInfoSchema(t.database)) {
      const info = infoSchemaView(t);
      if (!info)
        throw new ChHttpError(
          60,
          `Table ${t.database}.${t.table} does not exist in ch-scatter's catalog (information_schema has schemata, tables, columns and views)${at}`,
        );
      let v = infoViews.get(info);
      if (!v) {
        // ClickHouse's own definition, its system tables replaced by the views above (checked by the reach check, not trusted).
        v = await rewriteDeep(parseSelect(await infoSchemaSql(ctx.raw, info)), true);
        infoViews.set(info, v);
      }
      return { kind: 'subqueryTable', query: v, alias: t.alias ?? t.table, ...(t.pos ? { pos: t.pos } : {}) };
    }
    if ((t.database ?? '').toLowerCase() !== 'system') return t;
    const name = t.table.toLowerCase();
    if (ENGINE_TABLES.has(name)) return t;
    if (!(internal ? VIEWS : CLIENT_VIEWS).has(name))
      throw new ChHttpError(
        60,
        `Table system.${t.table} does not exist in ch-scatter's catalog (it answers system.databases, tables, columns, settings, functions and the engine's own tables)${at}`,
      );
    let v = views.get(name);
    if (!v) {
      v = parseSelect(await viewSql(ctx, name as ViewName));
      views.set(name, v);
    }
    return { kind: 'subqueryTable', query: v, alias: t.alias ?? t.table, ...(t.pos ? { pos: t.pos } : {}) };
  };
  const rewriteTables = async (q: SelectStatement, internal: boolean): Promise<SelectStatement> => {
    const selects = q.kind === 'union' ? q.selects : [q];
    const out = [];
    for (const sel of selects) {
      if (!sel.from) {
        out.push(sel);
        continue;
      }
      // `db.table.column` names a replaced table by its name even when it has an alias (JDBC's
      // `FROM system.tables t ... system.tables.database`): it becomes `<alias>.column`.
      const qualified = new Map<string, string>();
      const replace = async (t: TableExpr) => {
        const r = await replaceTable(t, internal);
        if (r !== t && t.kind === 'table' && t.database !== undefined && r.kind === 'subqueryTable' && r.alias)
          qualified.set(`${t.database.toLowerCase()}.${t.table}`, r.alias);
        return r;
      };
      const table = await replace(sel.from.table);
      const joins = [];
      for (const j of sel.from.joins) joins.push({ ...j, table: await replace(j.table) });
      const replaced: SelectQuery = { ...sel, from: { ...sel.from, table, joins } };
      out.push(qualified.size === 0 ? replaced : requalify(replaced, qualified));
    }
    return q.kind === 'union' ? { ...q, selects: out } : out[0]!;
  };
  // Every depth: the subqueries of expressions (copied), then the FROM/JOIN tables, whose subqueries
  // are rewritten the same way; the views go in last, so the reach check knows them as the runtime's.
  const rewriteDeep = async (q: SelectStatement, internal = false): Promise<SelectStatement> => {
    const pending: Promise<void>[] = [];
    const mapped = mapStatement(q, (e) => {
      if (e.kind !== 'subquery') return undefined;
      const node = { ...e };
      pending.push(
        rewriteDeep(e.query, internal).then((x) => {
          node.query = x;
        }),
      );
      return node;
    });
    await Promise.all(pending);
    return rewriteTables(mapped, internal);
  };
  // The client's statement first, before anything is asked of a shard (the views' columns, the sizes):
  // the system tables it may name and information_schema's views, nothing else.
  const valued = withContextValues(stmt, ctx);
  const external = ctx.external?.size ? { external: ctx.external } : {};
  checkReach(valued, {
    what: 'the catalog engine',
    tables: INFO_SCHEMA_NAMES,
    systemTables: new Set([...ENGINE_TABLES, ...CLIENT_VIEWS]),
    tableFunctions: CATALOG_TABLE_FUNCTIONS,
    ...external,
  });
  const rewritten = await rewriteDeep(valued);
  checkReach(rewritten, {
    what: 'the catalog engine',
    tables: new Set(),
    systemTables: ENGINE_TABLES,
    tableFunctions: CATALOG_TABLE_FUNCTIONS,
    trusted: new Set(views.values()),
    ...external,
  });
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
    case 'existsDatabase':
      return `SELECT toUInt8(${configured(ctx.topo).some((t) => t.distDb === st.database) ? 1 : 0}) AS result`;
    case 'showCreate': {
      const t = findTable(ctx.topo, st.table, ctx.database);
      if (!t) throw new ChHttpError(390, `Table ${st.table.database ?? ctx.database}.${st.table.table} doesn't exist`);
      return `SELECT create_table_query AS statement FROM (${await viewSql(ctx, 'tables')}) WHERE database = ${s(t.distDb)} AND name = ${s(t.distTable)}`;
    }
    case 'killQuery':
    case 'insert':
      throw new ChHttpError(49, `${st.kind} is not a catalog statement`);
  }
}

export function unknownTable(t: TableName, database: string): ChHttpError {
  return new ChHttpError(60, `Table ${t.database ?? database}.${t.table} does not exist`);
}
