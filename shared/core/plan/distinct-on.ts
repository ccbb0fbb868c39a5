// `SELECT DISTINCT ON (a, b) ...` is ClickHouse's `LIMIT 1 BY a, b` (the first row of each (a, b)
// after ORDER BY), and is rewritten so before either path plans, in every SELECT of the statement
// (a set or subquery a shard's engine runs included, as ClickHouse's parser rewrites it at any depth);
// the parser already refuses it together with LIMIT BY or WITH TIES, as ClickHouse does.
import type { SelectQuery, SelectStatement } from '../sql/ast.js';
import { mapEverySelect } from '../sql/visit.js';

const one = { kind: 'literal', type: 'integer', value: '1' } as const;

function rewrite(q: SelectQuery): SelectQuery {
  if (!q.distinctOn) return q;
  const { distinctOn, ...rest } = q;
  return { ...rest, distinct: false, limitBy: { limit: { ...one, ...(distinctOn[0]?.pos ? { pos: distinctOn[0].pos } : {}) }, by: distinctOn } };
}

export function distinctOnAsLimitBy(stmt: SelectStatement): SelectStatement {
  return mapEverySelect(stmt, rewrite);
}
