// Before a SELECT is split between the stages, every alias is replaced by what it names, as
// ClickHouse resolves them (aliases are visible in every clause, and win over columns of the same
// name): `WITH expr AS x` items, `expr AS x` anywhere in the query, and positional GROUP BY /
// ORDER BY / LIMIT BY (`GROUP BY 1` is the first column, ClickHouse 26's default). The result has no
// aliases left (except ARRAY JOIN's, which name new columns), so the stages can alias freely. Aliases
// that lead round to themselves are read as readsColumn says.
import type { Expr, SelectQuery } from '../../sql/ast.js';
import { type Clause, equalExpr, exprsOfSelect, mapExpr, mapSelectExprs, walkExpr } from '../../sql/visit.js';
import { swappedNames } from '../alias-swap.js';
import { errorAt } from '../position.js';

/** The query with aliases and WITH expressions inlined; CTE items (`name AS (SELECT ...)`) are kept. */
export function expandAliases(q: SelectQuery): SelectQuery {
  const defs = new Map<string, Expr>();
  const arrayJoinNames = new Set((q.from?.arrayJoin?.exprs ?? []).map((e) => e.alias).filter((a): a is string => a !== undefined));
  for (const w of q.with ?? []) if (!w.cte && !defs.has(w.name)) defs.set(w.name, w.expr);
  const withNames = new Set(defs.keys());
  // Of a swap whose name is no column of the table (`status AS x, x AS status`), the other name's column.
  const table = q.from?.table;
  const columns = table?.kind === 'table' && table.columns ? new Set(table.columns) : undefined;
  const swapFallback = (name: string, other: string): string | undefined => {
    const def = defs.get(other);
    const bare = def?.kind === 'column' && def.parts.length === 1 && def.parts[0] === name;
    return columns && bare && !columns.has(name) && columns.has(other) ? other : undefined;
  };
  // Outside the SELECT list, a name of a swap whose names are all columns reads its item's definition
  // over the columns (`WHERE site` after `status AS site, site AS status` is the column status): so
  // ClickHouse 26 reads it, whatever else the list holds (in the list, such a name stays a cycle).
  const swapped = [...swappedNames(q.columns)];
  const overColumns = new Set(columns && swapped.every((n) => columns.has(n)) ? swapped : []);
  for (const { clause, expr } of exprsOfSelect(q)) {
    // INTERPOLATE names output columns and is read over the rows before, as written (the final stage keeps it).
    if (clause === 'with' || clause === 'arrayJoin' || clause === 'interpolate') continue;
    walkExpr(expr, (e) => {
      if (e.alias !== undefined && !arrayJoinNames.has(e.alias)) {
        const before = defs.get(e.alias);
        if (before === undefined) defs.set(e.alias, e);
        else if (!withNames.has(e.alias)) refuseSecondMeaning(e.alias, before, e);
      }
      return e.kind !== 'lambda';
    });
  }

  // `swaps`: the swap names read over the columns where met as a clause's own reference (overColumns, or none).
  const expand = (e: Expr, scope: ReadonlySet<string>, expanding: Expanding, swaps: ReadonlySet<string> = NONE): Expr =>
    mapExpr(e, (x) => {
      if (x.alias !== undefined && defs.get(x.alias) === x && !expanding.has(x.alias))
        return expand({ ...x, alias: undefined } as Expr, scope, new Map([...expanding, [x.alias, 'own']]));
      if (x.kind === 'column' && x.parts.length === 1) {
        const name = x.parts[0]!;
        const def = defs.get(name);
        if (!def || scope.has(name)) return undefined;
        if (expanding.has(name)) return readsColumn(name, expanding, x, swapFallback);
        if (expanding.size === 0 && swaps.has(name)) return expand(def, new Set([...scope, ...swaps]), new Map([[name, 'ref']]));
        return expand(def, scope, new Map([...expanding, [name, 'ref']]));
      }
      if (x.kind === 'lambda') return { ...x, params: [...x.params], body: expand(x.body, new Set([...scope, ...x.params]), expanding, swaps) };
      return undefined;
    });
  // A key written for a position or ORDER BY ALL is the item itself; so is a GROUP BY key that names
  // an item (GROUP BY ALL is spelled so): read as the item reads itself. Of a swap, any reading groups
  // by the same columns, so this answers what ClickHouse does.
  const items = new Set(q.columns);
  const itemKey = (e: Expr, clause: Clause): Expr => {
    if (e.kind !== 'column' || e.parts.length !== 1 || e.alias || (clause !== 'groupBy' && !e.selectItem)) return e;
    const def = defs.get(e.parts[0]!);
    return def && items.has(def) ? def : e;
  };
  const out = mapSelectExprs(q, (e, clause) =>
    clause === 'arrayJoin' || clause === 'interpolate'
      ? e
      : stripAliases(expand(itemKey(e, clause), new Set(), new Map(), OVER_COLUMNS_IN.has(clause) ? overColumns : NONE)),
  );
  const cte = (q.with ?? []).filter((w) => w.cte);
  if (cte.length) out.with = cte;
  else delete out.with;

  // Positional arguments refer to the SELECT list (ClickHouse 26: enable_positional_arguments = 1).
  const positional = (e: Expr): Expr => {
    if (e.kind !== 'literal' || e.type !== 'integer' || !/^\d+$/.test(e.value)) return e;
    const n = Number(e.value);
    const col = out.columns[n - 1];
    return n >= 1 && col && col.kind !== 'asterisk' ? col : e;
  };
  if (out.groupBy) out.groupBy = out.groupBy.map(positional);
  if (out.groupingSets) out.groupingSets = out.groupingSets.map((g) => g.map(positional));
  if (out.orderBy) out.orderBy = out.orderBy.map((o) => ({ ...o, expr: positional(o.expr) }));
  if (out.limitBy) out.limitBy = { ...out.limitBy, by: out.limitBy.by.map(positional) };
  return out;
}

const NONE: ReadonlySet<string> = new Set();
/** The clauses where a swap's name was checked to read over the columns (the property against chdb, beside any other items). */
const OVER_COLUMNS_IN: ReadonlySet<Clause> = new Set(['where', 'having', 'orderBy', 'limitBy']);

/**
 * How each alias being expanded was entered: by the node that defines it ('own': `x AS a` itself),
 * or by a reference to it ('ref': the name `a` elsewhere), in order.
 */
type Expanding = ReadonlyMap<string, 'own' | 'ref'>;

/**
 * A name met again while its alias is being expanded reads the column of that name in two cases
 * ClickHouse answers alike in every version: a definition that reads its own name (`sum(x) AS x`),
 * and the swap of two items (`status AS site, site AS status`: each item is the column of its own
 * name). Where the swap's name is no column and the other item is that name alone (`status AS x,
 * x AS status`), ClickHouse 26 reads the other name's column (`fallback`; with `toString(x) AS status`
 * it answers 47, as the inlined query does). Any other cycle is refused (174, as ClickHouse did before
 * its analyzer): ClickHouse 26 reads a reference into a cycle by the order of the SELECT list, not by
 * what the aliases say.
 */
function readsColumn(name: string, expanding: Expanding, at: Expr, fallback: (name: string, other: string) => string | undefined): Expr | undefined {
  const entered = [...expanding];
  const last = entered[entered.length - 1]![0];
  const swap = entered.length === 2 && entered[0]![0] === name && entered[0]![1] === 'own' && entered[1]![1] === 'ref';
  if (name === last) return undefined;
  if (swap) {
    const other = fallback(name, entered[1]![0]);
    return other === undefined ? undefined : { kind: 'column', parts: [other], ...(at.pos ? { pos: at.pos } : {}) };
  }
  throw errorAt('QUERY_ERROR', `Cyclic aliases: ${[...entered.map(([n]) => n), name].join(' -> ')}`, at, {
    clickhouse: { code: 174, name: 'CYCLIC_ALIASES' },
  });
}

/**
 * ClickHouse refuses one alias given to two different expressions (179). Columns are compared by
 * name alone (`b.x` and `x` may be one column), so only what surely differs is refused.
 */
function refuseSecondMeaning(alias: string, a: Expr, b: Expr): void {
  const byName = (e: Expr) => mapExpr(stripAliases(e), (x) => (x.kind === 'column' ? { kind: 'column', parts: [x.parts[x.parts.length - 1]!] } : undefined));
  if (equalExpr(byName(a), byName(b))) return;
  throw errorAt('QUERY_ERROR', `Multiple expressions for alias ${alias}`, b, { clickhouse: { code: 179, name: 'MULTIPLE_EXPRESSIONS_FOR_ALIAS' } });
}

/** A copy of `e` with no alias on any node (subqueries keep theirs: they are their own scope). */
export function stripAliases(e: Expr): Expr {
  const copy = mapExpr(e, () => undefined);
  walkExpr(copy, (x) => {
    delete x.alias;
    return undefined;
  });
  return copy;
}
