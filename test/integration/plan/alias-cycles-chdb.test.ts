// Aliases that name columns and each other (`status AS site, site AS status`): the general path
// inlines every alias before it splits a query, so the inlined query must read on ClickHouse as the
// query as written does. Both run on chdb: the same rows, or both refused.
import { query } from 'chdb';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { SelectQuery } from '../../../shared/core/sql/ast.js';
import { parseSelect } from '../../../shared/core/sql/parse.js';
import { printSelect } from '../../../shared/core/sql/print.js';
import { spellOrderByAll } from '../../../shared/core/plan/order-by-all.js';
import { settlePositions } from '../../../shared/core/plan/positional.js';
import { expandAliases } from '../../../shared/core/plan/two-stage/aliases.js';

const T = "values('status UInt16, site String, c UInt8', (5, 'abc', 7), (9, 'de', 1))";
/** T as the plan sees a distributed table whose columns it read (plan/alias-cycles.ts): by a name, its columns on the node. */
const NAMED = 'swapped_table';
const COLUMNS = ['status', 'site', 'c'];

/** The rows chdb answers (TSV), or `error` when it refuses (`unknown` for an unknown identifier). */
function rows(sql: string): string {
  try {
    return query(`${sql} FORMAT TSV`, 'TSV');
  } catch (e) {
    return /UNKNOWN_IDENTIFIER/.test(String(e)) ? 'unknown' : 'error';
  }
}

/**
 * The inlined query, `error` when the plan refuses the query, `cyclic` when it refuses a cycle (174).
 * Positions and ORDER BY ALL are settled first, as the session settles them before either path plans.
 */
function inlined(sql: string): string {
  try {
    const settled = settlePositions(spellOrderByAll(parseSelect(sql.replace(T, NAMED)) as SelectQuery, true), undefined) as SelectQuery;
    const table = settled.from!.table;
    if (table.kind === 'table') table.columns = COLUMNS;
    return printSelect(expandAliases(settled)).replace(NAMED, T);
  } catch (e) {
    return (e as { details?: { clickhouse?: { code?: number } } }).details?.clickhouse?.code === 174 ? 'cyclic' : 'error';
  }
}

/** The same rows, or both refused, or the plan refuses a cycle of aliases (never other rows). */
function expectAsWritten(sql: string): string {
  const want = rows(sql).replace('unknown', 'error');
  const text = inlined(sql);
  if (text === 'cyclic') return text;
  const got = text === 'error' ? 'error' : rows(text);
  expect(got.replace('unknown', 'error'), `${sql}\n  inlined: ${text}`).toBe(want);
  return 'same';
}

describe('aliases inlined as ClickHouse reads them', () => {
  // Answered as ClickHouse answers: an item's own name, the swap of two items, chains without a cycle.
  for (const sql of [
    `SELECT status AS site, site AS status FROM ${T}`,
    `SELECT toString(site) AS status, toString(status) AS site FROM ${T}`,
    `SELECT toString(status) AS site, site AS status FROM ${T}`,
    `SELECT status AS c, c AS status FROM ${T}`,
    `SELECT c + 1 AS site, site AS status FROM ${T}`,
    `SELECT status AS site, site AS c, toTypeName(c), c FROM ${T}`,
    `SELECT toString(site) AS site FROM ${T} WHERE site != ''`,
    `SELECT status AS site FROM ${T} WHERE site = 5`,
    // GROUP BY ALL is spelled as the items' names: a key naming an item is that item.
    `SELECT status AS site, site AS status, count() AS n FROM ${T} GROUP BY site, status ORDER BY min(c)`,
    `SELECT status AS site, site AS status, count() AS n FROM ${T} GROUP BY status, site ORDER BY min(c)`,
    // A swap whose name x is no column, the other item that name alone: both items read the column status.
    `SELECT status AS x, x AS status FROM ${T}`,
    `SELECT x AS status, status AS x FROM ${T}`,
    `SELECT toString(status) AS x, x AS status FROM ${T}`,
    `SELECT concat(toString(site), '!') AS x, x AS site FROM ${T} ORDER BY ALL`,
    `SELECT status AS x, x AS status, count() AS n FROM ${T} GROUP BY ALL ORDER BY 1`,
    // ... and where that item is more than the name, ClickHouse's 47 (unknown x), as the inlined query's.
    `SELECT status + 1 AS x, toString(x) AS status FROM ${T}`,
    `SELECT status AS x, toString(x) AS status FROM ${T}`,
    // Outside the list, a name of a swap of two columns reads its item's definition over the columns
    // (site is the column status), whatever else the list holds.
    `SELECT status AS site, site AS status FROM ${T} WHERE site = 5`,
    `SELECT status AS site, site AS status FROM ${T} WHERE site != 'zz'`,
    `SELECT c, status AS site, site AS status FROM ${T} ORDER BY site DESC`,
    `SELECT toString(status) AS site, toString(site) AS status FROM ${T} WHERE site = '5' ORDER BY status`,
    `SELECT status AS site, site AS status, count() AS n FROM ${T} GROUP BY site, status HAVING site > 5 ORDER BY site`,
    // A position and ORDER BY ALL name the items themselves.
    `SELECT status AS site, site AS status FROM ${T} ORDER BY ALL`,
    `SELECT status AS site, site AS status FROM ${T} ORDER BY ALL DESC`,
    `SELECT status AS site, site AS status FROM ${T} ORDER BY 2 DESC, 1`,
    `SELECT toString(site) AS status, toString(status) AS site FROM ${T} ORDER BY ALL DESC`,
    `SELECT status AS site, site AS status, count() AS n FROM ${T} GROUP BY ALL ORDER BY ALL`,
    `SELECT status AS site, site AS status FROM ${T} ORDER BY c LIMIT 1 BY 1`,
  ])
    it(sql, () => expect(expectAsWritten(sql)).toBe('same'));

  // References into a cycle, read in the order ClickHouse 26 reads the list: an item before the swap
  // that reads status reads both aliases over the column status (5, 5, 5); a later reference reads an
  // alias as its first reading did; three aliases in a ring; a name left unread stays the column.
  for (const sql of [
    `SELECT status + 0 AS f, status AS site, site AS status FROM ${T}`,
    `SELECT status + 0 AS f, status AS site, site AS status FROM ${T} WHERE site = 5`,
    `SELECT concat(toString(site), '!') AS x, x AS site FROM ${T} WHERE site != 'zz'`,
    `SELECT status AS site, site AS status, toTypeName(site) FROM ${T}`,
    `SELECT toTypeName(site), status AS site, site AS status FROM ${T}`,
    `SELECT status AS site, site AS status, site AS s2 FROM ${T}`,
    `SELECT status AS site, toString(status) AS f, site AS status FROM ${T}`,
    `SELECT c AS status, site AS c, status AS site FROM ${T}`,
    `SELECT toString(c) AS x, x AS y, y AS c FROM ${T} WHERE c = '7'`,
    `SELECT toString(status) AS x, x AS status, toTypeName(status), c FROM ${T} ORDER BY 1 DESC, c`,
    `WITH status AS site SELECT site AS status, status FROM ${T}`,
    `WITH site AS status SELECT status AS site FROM ${T}`,
    `SELECT status AS site, site AS status FROM ${T} WHERE (site AS q) = 5`,
    // Over a subquery in FROM, its output names are the columns.
    `SELECT status AS x, x AS status FROM (SELECT status, site, c FROM ${T})`,
    `SELECT status + 0 AS f, status AS site, site AS status FROM (SELECT status, site FROM ${T}) WHERE site = 5`,
    `SELECT toString(c) AS x, x AS y, y AS c FROM (SELECT c, status FROM ${T})`,
    // ClickHouse refuses these too (215: site is not grouped, the key site reading the column status; 47: b is no column).
    `SELECT status AS site, site AS status FROM ${T} GROUP BY site`,
    `SELECT concat(toString(status), b) AS status, status AS b FROM ${T}`,
  ])
    it(`${sql} (a cycle)`, () => expect(expectAsWritten(sql)).toBe('same'));

  it("without the table's columns, every name of a cycle is taken for a column", () => {
    const inline = (sql: string, columns?: string[]) => {
      const q = parseSelect(sql) as SelectQuery;
      if (columns && q.from!.table.kind === 'table') q.from!.table.columns = columns;
      return printSelect(expandAliases(q));
    };
    expect(inline('SELECT c AS status, site AS c, status AS site FROM t')).toBe('SELECT status, status, status FROM t');
    expect(inline('SELECT status AS site, site AS status FROM t')).toBe('SELECT site, status FROM t');
    // Where x is no column ClickHouse reads the column status for both items: known columns read so, unknown
    // ones read the column x, which the engine then refuses (47), never another answer.
    expect(inline('SELECT status AS x, x AS status FROM t', ['status', 'site'])).toBe('SELECT status, status FROM t');
    expect(inline('SELECT status AS x, x AS status FROM t')).toBe('SELECT x, status FROM t');
  });

  it('property: random SELECT lists whose aliases name columns and one another', () => {
    const names = ['status', 'site', 'c', 'x', 'y'] as const;
    const name = fc.constantFrom(...names);
    const expr = fc
      .tuple(fc.constantFrom('#', 'toString(#)', "concat(toString(#), '!')", 'toTypeName(#)', 'concat(toString(#), toString(@))'), name, name)
      .map(([f, n, m]) => f.replace('#', n).replace('@', m));
    // Each output name once: one alias of two expressions is ClickHouse's 179, and a column beside an
    // alias of its name (`status, site AS status`) gives rows ClickHouse 26 itself cannot keep apart (352).
    const random = fc
      .uniqueArray(fc.tuple(expr, fc.option(name, { nil: undefined })), { minLength: 1, maxLength: 4, selector: ([e, a]) => a ?? e })
      .map((l) => l.map(([e, a]) => (a === undefined ? e : `${e} AS ${a}`)));
    // Often a swap, of two columns or with x (no column), put anywhere among the others.
    const swap = fc.option(
      fc.constantFrom(
        ['status AS site', 'site AS status'],
        ['toString(status) AS site', 'toString(site) AS status'],
        ['site AS status', "concat(toString(status), '!') AS site"],
        ['status AS x', 'x AS status'],
        ['toString(status) AS x', 'x AS status'],
        ["concat(toString(site), '!') AS x", 'x AS site'],
        // Rings of three: of columns, and through names that are none.
        ['c AS status', 'site AS c', 'status AS site'],
        ['toString(c) AS x', 'x AS y', 'y AS c'],
        ['toString(site) AS status', 'x AS site', 'status AS x'],
      ),
      { nil: undefined },
    );
    const outName = (item: string) => item.match(/ AS (\w+)$/)?.[1] ?? item;
    const items = fc
      .tuple(random, swap, fc.nat())
      .map(([l, sw, at]) => (sw ? [...l.slice(0, at % (l.length + 1)), ...sw, ...l.slice(at % (l.length + 1))] : l))
      .filter((l) => new Set(l.map(outName)).size === l.length);
    // A filter that keeps one row of the two by any reading of the name (the column or an item over it),
    // in WHERE or in HAVING over every item as a key (the list holds no aggregate).
    const filter = fc.option(
      fc.tuple(
        fc.constantFrom('where', 'having'),
        name.map((n) => `toString(${n}) IN ('5', 'abc', '5!', 'abc!', 'UInt16')`),
      ),
      { nil: undefined },
    );
    const limitBy = fc.option(
      name.map((n) => ` LIMIT 1 BY toString(${n})`),
      { nil: undefined },
    );
    // A sort key: a name (a reference), a position, or none; or the whole list (ORDER BY ALL), whose ties are equal rows.
    const order = fc.oneof(
      fc.constant(''),
      name.map((n) => `toString(${n}), c`),
      fc.integer({ min: 1, max: 4 }).map((k) => `${k} DESC, c`),
      fc.constant('ALL'),
    );
    const outcomes = new Map<string, number>();
    fc.assert(
      fc.property(items, filter, order, limitBy, fc.option(fc.tuple(expr, name), { nil: undefined }), (list, f, o, by, w) => {
        const grouped = f?.[0] === 'having';
        // Grouped, only the items are sortable (c may be none of them).
        const key = grouped ? 'ALL' : /^\d/.test(o) && Number(o[0]) > list.length ? 'c' : o || 'c';
        const clause = !f ? '' : grouped ? ` GROUP BY ${list.map((_, i) => i + 1).join(', ')} HAVING ${f[1]}` : ` WHERE ${f[1]}`;
        // Sometimes a WITH item too, of a name the list does not give (ClickHouse reads a name given twice apart).
        const defined = new Set(list.map(outName));
        fc.pre(!w || !defined.has(w[1]));
        const sql = `${w ? `WITH ${w[0]} AS ${w[1]} ` : ''}SELECT ${list.join(', ')} FROM ${T}${clause} ORDER BY ${key}${by ?? ''}`;
        if (w) defined.add(w[1]);
        // x and y are no columns: read only where the query names them (else both are 47, which proves little).
        fc.pre([...sql.matchAll(/\b(x|y)\b/g)].every(([n]) => defined.has(n)));
        const r = expectAsWritten(sql);
        outcomes.set(r, (outcomes.get(r) ?? 0) + 1);
      }),
      { numRuns: 600 },
    );
    // Every list is answered as written, cycles included: none is refused.
    expect(outcomes.get('cyclic'), JSON.stringify([...outcomes])).toBeUndefined();
    expect(outcomes.get('same') ?? 0, JSON.stringify([...outcomes])).toBeGreaterThan(400);
  });
});
