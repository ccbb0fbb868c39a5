// generateRandom() without a seed (or with NULL): ClickHouse's Distributed table lets every shard draw
// its own rows, so no two shards, and no two runs, agree. The coordinator draws one seed per request
// and writes it into each such call before planning, so every engine draws the same rows (as with a
// seed the user gave) and the answer, which reports the seeds, can be repeated with them.
import { randomBytes } from 'node:crypto';
import type { SelectStatement, TableExpr, TableFunction } from '../sql/ast.js';
import { cloneAst } from '../sql/ast.js';
import { walkStatement, fromTables } from '../sql/visit.js';

/** A seed as generateRandom() takes it: a UInt64. */
export const drawSeed = (): string => randomBytes(8).readBigUInt64BE().toString();

const unseeded = (t: TableExpr): t is TableFunction =>
  t.kind === 'tableFunction' &&
  t.name.toLowerCase() === 'generaterandom' &&
  (t.args[1] === undefined || (t.args[1].kind === 'literal' && t.args[1].type === 'null'));

function forEachTable(s: SelectStatement, fn: (t: TableExpr) => void): void {
  const visit = (st: SelectStatement) => {
    for (const q of st.kind === 'union' ? st.selects : [st]) {
      for (const t of fromTables(q)) {
        fn(t);
        if (t.kind === 'subqueryTable') visit(t.query);
      }
    }
    walkStatement(st, (e) => {
      if (e.kind === 'subquery') visit(e.query);
      return e.kind === 'subquery' ? false : undefined;
    });
  };
  visit(s);
}

/** The statement with a drawn seed in every generateRandom() that has none, and those seeds in order (none: the statement itself). */
export function seedRandomTables(stmt: SelectStatement, draw: () => string = drawSeed): { statement: SelectStatement; seeds: string[] } {
  let found = false;
  forEachTable(stmt, (t) => {
    found ||= unseeded(t);
  });
  if (!found) return { statement: stmt, seeds: [] };
  const statement = cloneAst(stmt);
  const seeds: string[] = [];
  forEachTable(statement, (t) => {
    if (!unseeded(t)) return;
    const seed = draw();
    seeds.push(seed);
    const lit = { kind: 'literal' as const, type: 'integer' as const, value: seed, ...(t.pos ? { pos: t.pos } : {}) };
    t.args = [t.args[0]!, lit, ...t.args.slice(2)];
  });
  return { statement, seeds };
}
