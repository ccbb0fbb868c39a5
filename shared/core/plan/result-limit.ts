// ClickHouse's `limit` and `offset` settings on a statement: the setting's offset counts after the
// query's own OFFSET, and its limit caps the rows left after both, so the answer is the query's rows
// [offset, offset + limit). Folded into the statement's LIMIT clause, so the planner sees one LIMIT
// (pushed to the shards as any other) and the final stage needs no setting an older shard lacks.
import type { Expr, LimitClause, SelectStatement } from '../sql/ast.js';
import { ScatterError } from '../errors.js';

export interface ResultLimit {
  /** 0 or absent: no cap. */
  limit?: number;
  offset?: number;
}

const int = (n: number): Expr => ({ kind: 'literal', type: 'integer', value: String(n) });

function literalCount(e: Expr | undefined): number | undefined {
  if (e === undefined) return 0;
  return e.kind === 'literal' && e.type === 'integer' && Number.isSafeInteger(Number(e.value)) ? Number(e.value) : undefined;
}

export function applyResultLimit(stmt: SelectStatement, r: ResultLimit): SelectStatement {
  const limit = r.limit ?? 0;
  const offset = r.offset ?? 0;
  if (limit === 0 && offset === 0) return stmt;
  const refuse = (why: string) =>
    new ScatterError(
      'UNSUPPORTED',
      `the limit and offset settings are applied to the query's own LIMIT, which ${why}; write LIMIT ... OFFSET ... in the query`,
    );
  if (stmt.kind === 'union') throw refuse('a UNION has none of');
  const own = stmt.limit;
  if (own?.withTies) throw refuse('has WITH TIES');
  const ownOffset = literalCount(own?.offset);
  const ownLimit = own ? literalCount(own.limit) : undefined;
  if (ownOffset === undefined || (own && ownLimit === undefined)) throw refuse('is not a plain number');
  // Rows the query's own LIMIT leaves after the setting's offset, capped by the setting's limit.
  const left = own ? Math.max(0, ownLimit! - offset) : undefined;
  const rows = left === undefined ? limit : limit === 0 ? left : Math.min(left, limit);
  const clause: LimitClause = {
    // An offset alone: no cap (the largest count the planner's arithmetic keeps exact).
    limit: rows === 0 && left === undefined ? int(Number.MAX_SAFE_INTEGER) : int(rows),
    ...(ownOffset + offset > 0 ? { offset: int(ownOffset + offset) } : {}),
  };
  return { ...stmt, limit: clause };
}
