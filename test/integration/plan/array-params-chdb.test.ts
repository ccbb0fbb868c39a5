// Array query parameters are read as ClickHouse reads them, before anything runs: the same values
// pass, with the same result, and the same values fail, with ClickHouse's code (chdb is the reference:
// `SET param_a = ...; SELECT {a:...}` is ClickHouse's own reading).
import { afterAll, describe, expect, it } from 'vitest';
import { bindParams } from '../../../shared/core/plan/bind-params.js';
import { ScatterError } from '../../../shared/core/errors.js';
import { parseSelect } from '../../../shared/core/sql/parse.js';
import { printSelect } from '../../../shared/core/sql/print.js';
import { quoteStringLiteral } from '../../../shared/core/sql/quote.js';
import { openEngine } from '../sql/chdb-session.js';

const engine = openEngine('array-params');
afterAll(() => engine.close());

const CASES: [string, string][] = [
  ['Array(UInt8)', '[1,2]'],
  ['Array(UInt8)', '[300]'],
  ['Array(UInt8)', '[]'],
  ['Array(UInt8)', '[NULL]'],
  ['Array(Int32)', '[-1, 2]'],
  ['Array(String)', "['a', 'b\\'c']"],
  ['Array(Nullable(String))', "['a', NULL]"],
  ['Array(Array(UInt8))', '[[1],[2, 3]]'],
  ['Array(UInt8)', '[1,2'],
  ['Array(UInt8)', "['1']"],
  ['Array(UInt8)', "[1,'a']"],
  ['Array(UInt8)', '[-1]'],
  ['Array(UInt8)', '[[1],[2]]'],
  ['Array(UInt8)', '[1,2] x'],
  ['Array(UInt8)', ' [1, 2 ] '],
  ['Array(UInt8)', '1,2'],
  ['Array(String)', '[a]'],
  ['Array(String)', '[1]'],
];

/** ClickHouse's reading: the value, or the error code. */
function theirs(type: string, v: string): { value?: string; code?: number } {
  try {
    return { value: engine.session.query(`SET param_a = ${quoteStringLiteral(v)}; SELECT {a:${type}} AS x`, 'TSV') };
  } catch (e) {
    return { code: Number(/Code: (\d+)/.exec(String((e as Error).message))?.[1]) };
  }
}

function ours(type: string, v: string): { value?: string; code?: number } {
  try {
    const sql = printSelect(bindParams(parseSelect(`SELECT {a:${type}} AS x`), { a: v }));
    return { value: engine.session.query(sql, 'TSV') };
  } catch (e) {
    if (!(e instanceof ScatterError)) throw e;
    return { code: (e.details as { clickhouse: { code: number } }).clickhouse.code };
  }
}

describe('Array parameters against ClickHouse', () => {
  it('the same values read, to the same arrays; the same values fail, with the same code', () => {
    // Successes first: after a failed query chdb can leak output into the next one.
    const want = CASES.map(([t, v]) => ({ t, v, ...theirs(t, v) }));
    const good = want.filter((w) => w.code === undefined);
    const bad = want.filter((w) => w.code !== undefined);
    expect(good.length).toBeGreaterThan(5);
    expect(bad.length).toBeGreaterThan(5);
    for (const w of good) expect(ours(w.t, w.v), `${w.t} ${w.v}`).toEqual({ value: w.value });
    for (const w of bad) expect(ours(w.t, w.v).code, `${w.t} ${w.v}`).toBe(w.code);
  });
});
