// Aliases that lead round: which are cyclic, and the columns the plan puts on each table's
// node so the cycle reads as ClickHouse reads it (the answers themselves: the chdb tests of the cycles).
import { describe, expect, it } from 'vitest';
import { cyclicAliases, withCycleColumns } from '../../../shared/core/plan/alias-cycles.js';
import { expandAliases } from '../../../shared/core/plan/two-stage/aliases.js';
import type { SelectQuery, TableExpr } from '../../../shared/core/sql/ast.js';
import { parseSelect } from '../../../shared/core/sql/parse.js';
import { printSelect } from '../../../shared/core/sql/print.js';
import { testTopology } from './fixtures.js';

const topo = testTopology();
const COLUMNS: Record<string, string[]> = {
  'analytics.events_dist': ['sensor', 'ts', 'value', 'user_id'],
  'analytics.users_dist': ['user_id', 'name', 'country'],
};
const columnsOf = (d: string) => COLUMNS[d]?.map((name) => ({ name }));
const q = (sql: string) => parseSelect(sql) as SelectQuery;
const nodeColumns = (t: TableExpr) => (t.kind === 'table' ? t.columns : undefined);
const inlined = (sql: string) => printSelect(expandAliases(withCycleColumns(q(sql), topo, columnsOf)));

describe('alias cycles', () => {
  it('finds the aliases that reach themselves, never one that reads only itself', () => {
    expect([...cyclicAliases(q('SELECT value AS x, x AS value, toString(ts) AS ts FROM t'))].sort()).toEqual(['value', 'x']);
    expect(cyclicAliases(q('SELECT value + 1 AS value FROM t')).size).toBe(0);
  });
  it("puts every distributed table's columns on its node, a JOIN's included, only where a cycle needs them", () => {
    const joined = withCycleColumns(
      q('SELECT name AS x, x AS name FROM analytics.events_dist AS a JOIN analytics.users_dist AS b USING user_id'),
      topo,
      columnsOf,
    );
    expect(nodeColumns(joined.from!.table)).toEqual(COLUMNS['analytics.events_dist']);
    expect(nodeColumns(joined.from!.joins[0]!.table)).toEqual(COLUMNS['analytics.users_dist']);
    const plain = withCycleColumns(q('SELECT name FROM analytics.events_dist AS a JOIN analytics.users_dist AS b USING user_id'), topo, columnsOf);
    expect(nodeColumns(plain.from!.table)).toBeUndefined();
  });
  it('over a JOIN a name is a column where any table has it; one that is none reads the alias’s own name', () => {
    // name is b's column: both items read it.
    expect(inlined('SELECT name AS x, x AS name FROM analytics.events_dist AS a JOIN analytics.users_dist AS b USING user_id')).toBe(
      'SELECT name, name FROM analytics.events_dist AS a INNER JOIN analytics.users_dist AS b USING (user_id)',
    );
    // A subquery's output names count as its columns.
    expect(
      inlined(
        'SELECT label AS x, x AS label FROM analytics.events_dist AS a JOIN (SELECT user_id, name AS label FROM analytics.users_dist) AS b USING user_id',
      ),
    ).toMatch(/^SELECT label, label FROM/);
    // A constant table's columns are its own: numbers()'s `number`, values()'s declared ones, system.one's `dummy`.
    expect(inlined('SELECT value AS x, x AS value FROM analytics.events_dist AS a JOIN numbers(3) AS b ON a.user_id = b.number')).toMatch(
      /^SELECT value, value FROM/,
    );
    expect(inlined('SELECT number AS x, x AS number FROM analytics.events_dist AS a JOIN numbers(3) AS b ON a.user_id = b.number')).toMatch(
      /^SELECT number, number FROM/,
    );
    expect(inlined("SELECT v AS x, x AS v FROM analytics.events_dist AS a JOIN values('v UInt8', 1) AS b ON a.user_id = b.v")).toMatch(/^SELECT v, v FROM/);
    expect(inlined('SELECT dummy AS x, x AS dummy FROM analytics.events_dist AS a JOIN system.one AS b ON 1')).toMatch(/^SELECT dummy, dummy FROM/);
    // values() without a structure names its columns c1, c2..., one per element of its first row.
    expect(inlined('SELECT c1 AS x, x AS c1 FROM analytics.events_dist AS a JOIN values(1, 2) AS b ON 1')).toMatch(/^SELECT c1, c1 FROM/);
    expect(inlined("SELECT c2 AS x, x AS c2 FROM analytics.events_dist AS a JOIN values((1, 'a')) AS b ON 1")).toMatch(/^SELECT c2, c2 FROM/);
    // A row spelled tuple(...) is left unknown: the name is taken for a column (the engine's 47 where it is none).
    expect(inlined('SELECT c1 AS x, x AS c1 FROM analytics.events_dist AS a JOIN values(tuple(1)) AS b ON 1')).toMatch(/^SELECT x, c1 FROM/);
  });
  it("reads the request's external data by its declared columns", () => {
    const joined = q('SELECT v AS x, x AS v FROM analytics.events_dist AS a JOIN ext AS b ON 1');
    const ext = joined.from!.joins[0]!.table;
    if (ext.kind === 'table') ext.external = true; // as plan/external-tables.ts marks it
    const out = withCycleColumns(joined, topo, columnsOf, new Map([['ext', [{ name: 'v' }]]]));
    expect(nodeColumns(out.from!.joins[0]!.table)).toEqual(['v']);
    expect(printSelect(expandAliases(out))).toMatch(/^SELECT v, v FROM/);
  });
  it("over an ARRAY JOIN the names are the table's and the ARRAY JOIN's", () => {
    expect(inlined('SELECT name AS x, x AS name, e FROM analytics.users_dist ARRAY JOIN [1, 2] AS e')).toMatch(/^SELECT name, name, e FROM/);
    expect(inlined('SELECT e AS x, x AS e FROM analytics.users_dist ARRAY JOIN [1, 2] AS e')).toMatch(/^SELECT e, e FROM/);
    // An unaliased expression is named by its text: the table's columns are still known.
    expect(inlined('SELECT tag AS x, x AS tag FROM analytics.users_dist ARRAY JOIN [1, 2]')).toMatch(/^SELECT tag, x FROM/);
    // A name that is no column there: read as ClickHouse reads it, which then refuses `tag` (47), as the engine does here.
    expect(inlined('SELECT tag AS x, x AS tag FROM analytics.users_dist ARRAY JOIN [1, 2] AS e')).toMatch(/^SELECT tag, x FROM/);
  });
});
