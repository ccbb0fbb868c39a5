// Column references over a JOIN, resolved as ClickHouse's analyzer resolves them, once the tables'
// columns are known (expand-columns.ts): each reference to one table's column is spelled one way, so
// `b.label` and `label` are the same expression to the planner (one stage column, one GROUP BY key),
// and a later table's column whose name an earlier table has too is named `b.site`, as ClickHouse
// names it (`upper(b.site)`, but `upper(label)` where only b has a label).
import type { ColumnRef, Expr, SelectQuery } from '../sql/ast.js';
import { type Clause, exprsOfSelect, mapClausesShared, rewriteExpr, walkExpr } from '../sql/visit.js';

const RESOLVED = new Set<Clause>(['distinctOn', 'columns', 'prewhere', 'where', 'groupBy', 'having', 'window', 'qualify', 'orderBy', 'limitBy']);

export interface JoinSource {
  /** How its columns are qualified over a JOIN: the alias, else the table's name. */
  qualifier: string;
  /** Every name it may be called by (`b`, or `t` and `db.t`). */
  names: string[];
  columns: readonly { name: string }[];
}

/** The query with each column reference of the JOIN's tables spelled one way; as written without a JOIN or with ARRAY JOIN. */
export function resolveJoinColumns(q: SelectQuery, sources: readonly JoinSource[]): SelectQuery {
  if (!q.from?.joins.length || q.from.arrayJoin || sources.length < 2) return q;
  // A name an alias of this SELECT gives wins over a column of that name: such a column keeps its qualifier.
  const aliases = new Set<string>();
  for (const { expr } of exprsOfSelect(q))
    walkExpr(expr, (e) => {
      if (e.alias !== undefined) aliases.add(e.alias);
    });
  const holders = (c: string) => sources.filter((s) => s.columns.some((x) => x.name === c));
  const target = (parts: string[]): { s: JoinSource; c: string } | undefined => {
    if (parts.length === 1) {
      const s = holders(parts[0]!)[0];
      return s && { s, c: parts[0]! };
    }
    const [qual, c] = parts.length === 2 ? [parts[0]!, parts[1]!] : parts.length === 3 ? [`${parts[0]}.${parts[1]}`, parts[2]!] : [];
    const s = qual === undefined ? undefined : sources.find((x) => x.names.includes(qual));
    return s && s.columns.some((x) => x.name === c) ? { s, c: c! } : undefined;
  };
  const spell = (x: ColumnRef, scope: ReadonlySet<string>): ColumnRef | undefined => {
    if (x.parts.length === 1 && (aliases.has(x.parts[0]!) || scope.has(x.parts[0]!))) return undefined;
    const t = target(x.parts);
    if (!t) return undefined;
    const first = holders(t.c)[0] === t.s;
    const out: ColumnRef = { kind: 'column', parts: first && !aliases.has(t.c) ? [t.c] : [t.s.qualifier, t.c] };
    if (!first) out.nameAs = `${t.s.qualifier}.${t.c}`;
    if (x.pos) out.pos = x.pos;
    if (x.alias !== undefined) out.alias = x.alias;
    return out;
  };
  const resolve = (e: Expr, scope: ReadonlySet<string>): Expr =>
    rewriteExpr(e, (x) => {
      if (x.kind === 'subquery') return x;
      if (x.kind === 'column') return spell(x, scope) ?? x;
      if (x.kind === 'lambda') return { ...x, body: resolve(x.body, new Set([...scope, ...x.params])) };
      return undefined;
    });
  const none = new Set<string>();
  // ON and USING keep their spelling: there a bare name of both tables is ambiguous.
  return mapClausesShared(q, (e, clause) => (RESOLVED.has(clause) ? resolve(e, none) : e));
}
