// A leaf's subqueries and JOINs, as each shard will run them: table-less ones run on the shard;
// GLOBAL IN / GLOBAL JOIN keep the ordinary GLOBAL machinery (shared/core/plan/globals.ts: run once, shipped);
// a plain IN that is a local IN (local-in.ts) runs on the shard, exactly; any other plain IN / JOIN over a
// distributed table follows distributed_product_mode as in ClickHouse. A scalar subquery over a distributed
// table runs once before the leaves and ships its value, as ClickHouse's initiator computes scalars first
// (shared/core/plan/globals.ts).
import type { Expr, FunctionCall, JoinClause, Pos, SelectQuery, SelectStatement } from '../../sql/ast.js';
import { printExpr } from '../../sql/print.js';
import { mapClausesShared, rewriteExpr } from '../../sql/visit.js';
import type { Topology } from '../../config/schema.js';
import { errorAt } from '../position.js';
import { localInReason, type MainOf } from './local-in.js';
import { isInFamily } from '../analyze.js';
import { distributedTables } from './reads.js';
import { isConstantTable } from '../constant-tables.js';

export interface LeafContext {
  topo: Topology;
  mode: 'deny' | 'local' | 'global';
  note(line: string): void;
}

const unsupported = (what: string, node?: { pos?: Pos }) => errorAt('UNSUPPORTED', `${what} is not supported`, node);

/** The leaf with its IN subqueries and JOINs decided; `local`: plan its per-shard rewrite with distributed_product_mode 'local'. */
export function leafSubqueries(q: SelectQuery, main: MainOf, ctx: LeafContext): { query: SelectQuery; local: boolean } {
  let local = false;
  const deny = (what: string, table: string, node: { pos?: Pos }) =>
    errorAt(
      'UNSUPPORTED',
      `${what} reads the distributed table ${table}: each shard would see only its own part of it (distributed_product_mode = 'deny'). ` +
        "Write GLOBAL IN / GLOBAL JOIN, or set distributed_product_mode to 'global' or 'local'",
      node,
    );
  const out = mapClausesShared(q, (e) =>
    rewriteExpr(e, (x): Expr | undefined => {
      if (x.kind === 'subquery') {
        const reads = distributedTables(x.query, ctx.topo);
        if (reads.length) ctx.note(`the scalar subquery over ${reads[0]} runs once before the shards, and its value ships to every shard`);
        return SKIP_NODE(x);
      }
      if (x.kind !== 'function' || !isInFamily(x.name) || x.args.length !== 2) return undefined;
      const rhs = x.args[1]!;
      const reads =
        rhs.kind === 'subquery' ? distributedTables(rhs.query, ctx.topo) : rhs.kind === 'column' ? distributedTables(inTable(rhs.parts), ctx.topo) : [];
      if (reads.length === 0) return undefined;
      if (x.name.startsWith('global')) {
        ctx.note(
          `${printExpr(x.args[0]!)} GLOBAL ${x.name === 'globalIn' ? 'IN' : 'NOT IN'} ${reads[0]}: the subquery runs once and its rows ship to every shard`,
        );
        return SKIP_NODE(x);
      }
      const why = localInReason(x.args[0]!, rhs, main, ctx.topo);
      if (why) {
        local = true;
        ctx.note(`${why}`);
        return SKIP_NODE(x);
      }
      if (ctx.mode === 'deny') throw deny(x.name === 'in' ? 'IN with a right side that' : 'NOT IN with a right side that', reads[0]!, x);
      if (ctx.mode === 'local') {
        local = true;
        ctx.note(`${printExpr(x.args[0]!)} IN over ${reads[0]} reads each shard's local table (distributed_product_mode = 'local')`);
        return SKIP_NODE(x);
      }
      const g: FunctionCall = { ...x, name: x.name === 'in' ? 'globalIn' : 'globalNotIn' };
      if (x.operator) g.operator = x.name === 'in' ? 'GLOBAL IN' : 'GLOBAL NOT IN';
      ctx.note(`${printExpr(x.args[0]!)} IN over ${reads[0]} runs as GLOBAL IN (distributed_product_mode = 'global')`);
      return g;
    }),
  );
  if (out.from) {
    out.from = {
      ...out.from,
      joins: out.from.joins.map((j): JoinClause => {
        const reads =
          j.table.kind === 'table'
            ? distributedTables(inTable([...(j.table.database ? [j.table.database] : []), j.table.table]), ctx.topo)
            : j.table.kind === 'subqueryTable'
              ? distributedTables(j.table.query, ctx.topo)
              : [];
        if (j.table.kind === 'tableFunction' && !isConstantTable(j.table)) throw unsupported(`table function ${j.table.name}()`, j.table);
        if (reads.length === 0 || j.global) return j;
        if (ctx.mode === 'deny') throw deny('JOIN with a right side that', reads[0]!, j.pos ? j : j.table);
        if (ctx.mode === 'local') {
          local = true;
          return j;
        }
        return { ...j, global: true };
      }),
    };
  }
  return { query: out, local };
}

// rewriteExpr keeps a node returned as-is without descending into it.
const SKIP_NODE = (x: Expr): Expr => x;

function inTable(parts: string[]): SelectStatement {
  const table = parts[parts.length - 1]!;
  return {
    kind: 'select',
    distinct: false,
    columns: [{ kind: 'asterisk' }],
    from: { table: { kind: 'table', table, ...(parts.length === 2 ? { database: parts[0]! } : {}) }, joins: [] },
    withTotals: false,
  };
}
