// Which expressions the fast path's shards may break ORDER BY ties with. ClickHouse refuses a Dynamic,
// Variant or JSON value as a sort key (44), and the plan knows few types: an item is a tie-breaker only
// where its type is proved sortable, so a tie-breaker the user never wrote cannot fail a query.
import type { Expr } from '../sql/ast.js';
import { walkExpr } from '../sql/visit.js';

/** JSON, Dynamic and Variant values (ClickHouse's 44 as sort keys) and aggregate states. */
export const UNSORTABLE_TYPE = /\b(JSON|Dynamic|Variant|Object)\b|AggregateFunction\(/;

/** Calls whose result has one sortable type whatever their arguments are (a Dynamic's type name, its text). */
const FIXED_TYPE_CALLS = new Set(['dynamictype', 'varianttype', 'totypename', 'tostring', 'tojsonstring']);

/** `j.a` (`t.j.a`): a subcolumn, a JSON path's Dynamic unless typed (`j.a.:Int64`); a table's qualifier is no subcolumn. */
function untypedSubcolumn(e: Expr & { kind: 'column' }, qualifiers: ReadonlySet<string>): boolean {
  const p = e.parts;
  const own = qualifiers.has(`${p[0]}.${p[1]}`) ? p.slice(2) : qualifiers.has(p[0]!) ? p.slice(1) : p;
  return own.length > 1;
}

/**
 * Whether `e` is of a type ClickHouse sorts by, as far as the query shows it: false where it reads a JSON
 * path untyped or a column of `unsortable` (a shipped JOIN's Dynamic column), or casts to or names such a
 * type, outside a call or cast whose result type is fixed and sortable.
 */
export function provedSortable(e: Expr, qualifiers: ReadonlySet<string>, unsortable?: ReadonlySet<string>): boolean {
  let proved = true;
  walkExpr(e, (x) => {
    if (!proved) return false;
    switch (x.kind) {
      case 'column':
        if (x.typed !== undefined) proved = !UNSORTABLE_TYPE.test(x.typed);
        else proved = !untypedSubcolumn(x, qualifiers) && !unsortable?.has(x.parts.join('.'));
        return false;
      case 'cast':
        proved = !UNSORTABLE_TYPE.test(x.type);
        return false;
      case 'literal':
        // A type named by its text (JSONExtract(s, 'Dynamic')).
        if (x.type === 'string' && UNSORTABLE_TYPE.test(x.value)) proved = false;
        return false;
      case 'function':
        return !FIXED_TYPE_CALLS.has(x.name.toLowerCase());
      default:
        return true;
    }
  });
  return proved;
}
