// What an SQL text may reach, checked on its parsed tree before any engine runs it: the one check
// every SELECT ch-scatter builds for an engine passes (the shard SQL of both paths, GLOBAL and TPUT
// queries through the same planner, the general path's final stage, the catalog engine's SELECT).
//   - tables: only those the caller lists (configured local tables, the runtime's `_stage<i>` and
//     `_data_<hash>` tables, the external data the request declared, the catalog's own views, constant system tables, constant table functions
//     of bounded size: constant-tables.ts), in every position:
//     FROM, JOIN, `x IN table`, and inside every subquery at any depth, whatever clause holds it;
//   - functions: none of refused-functions.ts;
//   - SETTINGS clauses anywhere: only allow-listed names, never one that names a file;
//   - FORMAT: never one that reads or writes files.
// The values beside the text (output format, settings) pass `checkEngineOptions`. A text this
// check did not see must not reach an engine; shared/core/shard/execute.ts repeats the file rules itself.
import type { Expr, Pos, SelectQuery, SelectStatement, TableExpr } from '../sql/ast.js';
import { inTableOperand } from '../sql/in-operators.js';
import { exprsOfSelect, walkExpr, fromTables } from '../sql/visit.js';
import { deniedAt, errorAt } from './position.js';
import { refusalOf } from './refused-functions.js';
import { FORWARDED_SETTINGS } from './settings.js';
import { expressionNames } from './in-table.js';
import { fileFormatError, fileSettingError } from './file-access.js';
import { isFileFormat, isFileSetting } from '../clickhouse/file-names.js';
import type { Topology } from '../config/schema.js';
import { qualifyTable } from '../config/schema.js';
import { CONSTANT_TABLE_FUNCTIONS, checkConstantTable } from './constant-tables.js';

export interface Reach {
  /** For messages: what runs the text ("a shard query", "the final stage", "the catalog engine"). */
  what: string;
  /** `db.table` names the text may read (exact, as ClickHouse compares them). */
  tables: ReadonlySet<string>;
  /** Tables of the `system` database it may read (`one`; the catalog's engine tables). */
  systemTables?: ReadonlySet<string>;
  /** Unqualified names the runtime creates for the query (`_stage<i>`, `_data_<hash>`), by shape. */
  runtimeTables?: RegExp;
  /** The external data the request declared, by name (unqualified): exactly these. */
  external?: ReadonlySet<string>;
  /** Table functions (lower-cased) that read only their arguments (the catalog's `values`); their arguments are checked like any expression. */
  tableFunctions?: ReadonlySet<string>;
  /** Subtrees the runtime built itself (the catalog's views): taken as they are. */
  trusted?: ReadonlySet<SelectStatement>;
  /** Setting names a SETTINGS clause may carry; default: the settings forwarded to shards. */
  settings?: ReadonlySet<string>;
}

const ONE: ReadonlySet<string> = new Set(['one']);
/** The runtime's own tables: shipped GLOBAL data (`_data_<hash>`, globals.ts), the general path's stage tables. */
const SHIPPED = /^_data_\d+$/;
const STAGE_OR_SHIPPED = /^_(?:stage\d+|data_\d+)$/;
const localTables = new WeakMap<Topology, ReadonlySet<string>>();

/** What a shard query may read: the configured local tables, the shipped `_data_<hash>` tables, the request's external data, system.one. */
export function shardReach(topo: Topology, external?: ReadonlySet<string>): Reach {
  let tables = localTables.get(topo);
  if (!tables) {
    tables = new Set(Object.values(topo.tables).map((t) => qualifyTable(t.local)));
    localTables.set(topo, tables);
  }
  return {
    what: 'a shard query',
    tables,
    systemTables: ONE,
    runtimeTables: SHIPPED,
    tableFunctions: CONSTANT_TABLE_FUNCTIONS,
    ...(external ? { external } : {}),
  };
}

/** What the general path's final stage may read: its stage tables and shipped data, system.one. */
export const FINAL_STAGE_REACH: Reach = {
  what: 'the final stage',
  tables: new Set(),
  systemTables: ONE,
  runtimeTables: STAGE_OR_SHIPPED,
  tableFunctions: CONSTANT_TABLE_FUNCTIONS,
};

/** Throws at the first thing in `stmt` that `reach` does not allow, with its position. */
export function checkReach(stmt: SelectStatement, reach: Reach): void {
  visitStatement(stmt, reach, new Set(), expressionNames(stmt));
}

function visitStatement(s: SelectStatement, reach: Reach, ctes: ReadonlySet<string>, defined: ReadonlySet<string>): void {
  if (reach.trusted?.has(s)) return;
  if (s.kind === 'union') {
    checkClause(s.format, s.settings, reach, s);
    for (const q of s.selects) visitSelect(q, reach, ctes, defined);
  } else visitSelect(s, reach, ctes, defined);
}

function visitSelect(q: SelectQuery, reach: Reach, outer: ReadonlySet<string>, defined: ReadonlySet<string>): void {
  if (reach.trusted?.has(q)) return;
  const ctes = new Set(outer);
  for (const w of q.with ?? []) if (w.cte) ctes.add(w.name);
  checkClause(q.format, q.settings, reach, q);
  for (const t of fromTables(q)) visitTable(t, reach, ctes, defined, q);
  for (const { expr } of exprsOfSelect(q)) checkExpr(expr, reach, ctes, defined);
}

function checkExpr(expr: Expr, reach: Reach, ctes: ReadonlySet<string>, defined: ReadonlySet<string>): void {
  walkExpr(expr, (e) => {
    if (e.kind === 'function') {
      const why = refusalOf(e.name);
      if (why) throw deniedAt(`function ${e.name}() is not allowed: it ${why}`, e);
      const set = inTableOperand(e);
      if (set && set.parts.length > 2)
        throw errorAt('UNKNOWN_TABLE', `unknown table ${set.parts.join('.')}: ${reach.what} may read only the configured tables`, set);
      if (set && !(set.parts.length === 1 && (defined.has(set.parts[0]!) || ctes.has(set.parts[0]!)))) {
        checkName(set.parts.length === 2 ? set.parts[0] : undefined, set.parts[set.parts.length - 1]!, reach, ctes, set);
      }
    }
    if (e.kind === 'subquery') visitStatement(e.query, reach, ctes, defined);
    return undefined;
  });
}

function visitTable(t: TableExpr, reach: Reach, ctes: ReadonlySet<string>, defined: ReadonlySet<string>, reader: SelectQuery): void {
  if (t.kind === 'subqueryTable') visitStatement(t.query, reach, ctes, defined);
  else if (t.kind === 'tableFunction') {
    if (!reach.tableFunctions?.has(t.name.toLowerCase())) throw errorAt('UNSUPPORTED', `table function ${t.name}() is not supported`, t);
    if (CONSTANT_TABLE_FUNCTIONS.has(t.name.toLowerCase())) checkConstantTable(t, reader);
    for (const a of t.args) checkExpr(a, reach, ctes, defined);
  } else checkName(t.database, t.table, reach, ctes, t);
}

function checkName(database: string | undefined, table: string, reach: Reach, ctes: ReadonlySet<string>, node: { pos?: Pos }): void {
  if (database === undefined && (ctes.has(table) || reach.runtimeTables?.test(table) || reach.external?.has(table))) return;
  if (database !== undefined && reach.tables.has(`${database}.${table}`)) return;
  if (database === 'system' && reach.systemTables?.has(table)) return;
  const name = database !== undefined ? `${database}.${table}` : table;
  throw errorAt('UNKNOWN_TABLE', `unknown table ${name}: ${reach.what} may read only the configured tables`, node);
}

function checkClause(format: string | undefined, settings: SelectQuery['settings'], reach: Reach, node: { pos?: Pos }): void {
  if (format !== undefined && isFileFormat(format)) throw fileFormatError(format, node);
  const allowed = reach.settings ?? FORWARDED_SETTINGS;
  for (const s of settings ?? []) {
    if (isFileSetting(s.name)) throw fileSettingError(s.name, 'in a SETTINGS clause', s.value);
    if (!allowed.has(s.name))
      throw errorAt('UNSUPPORTED', `setting ${s.name} is not supported in ${reach.what}'s SETTINGS (not on the list of settings forwarded to shards)`, s.value);
  }
}
