// additional_table_filters read from the SETTINGS clause's map literal or the request's text, each
// filter put on the distributed tables its key names, at any depth, before the fold. (The answers
// over real shards against one chdb node: test/oracle/clickhouse-tests.test.ts, 02346_*.)
import { describe, expect, it } from 'vitest';
import { parseTopology } from '../../../shared/core/config/load.js';
import { tableFiltersOf, withTableFilters } from '../../../shared/core/plan/table-filters.js';
import { parseSelect } from '../../../shared/core/sql/parse.js';
import { printSelect } from '../../../shared/core/sql/print.js';
import { ScatterError } from '../../../shared/core/errors.js';

const topo = parseTopology({
  cluster: 'c',
  shards: [{ replicas: [{ url: 'http://a:8123' }] }],
  tables: { 'db.t': { local: 'db.t_local', shardingKey: { column: 'k', type: 'UInt64', function: 'identity' } } },
});
const filtered = (sql: string, settings?: Record<string, string>) => printSelect(withTableFilters(parseSelect(sql), settings, topo));

describe('additional_table_filters', () => {
  it('a map literal is a SETTINGS value only; elsewhere `{` is a query parameter, as in ClickHouse 26', () => {
    expect(printSelect(parseSelect("SELECT k FROM db.t SETTINGS additional_table_filters = {'db.t' : 'k > 1', 'u': 'x'}"))).toBe(
      "SELECT k FROM db.t SETTINGS additional_table_filters = {'db.t': 'k > 1', 'u': 'x'}",
    );
    expect(() => parseSelect("SELECT {'k': 1} FROM db.t")).toThrow(/Malformed query parameter/);
    expect(parseSelect('SELECT {p:UInt8} FROM db.t').kind).toBe('select');
  });

  it('keys name the table by db.table, its name or its alias; the filter reads the table before the query does', () => {
    const f = "SETTINGS additional_table_filters = {'db.t' : 'k != 2'}";
    expect(filtered(`SELECT k AS x FROM db.t WHERE x > 1 ${f}`)).toBe(`SELECT k AS x FROM db.t WHERE k != 2 AND x > 1 ${f.replace(' : ', ': ')}`);
    expect(filtered('SELECT count() FROM db.t AS a FINAL PREWHERE k > 0', { additional_table_filters: "{'a': 'k = 1 OR k = 2'}" })).toBe(
      'SELECT count() FROM db.t AS a FINAL PREWHERE k > 0 WHERE k = 1 OR k = 2',
    );
    // A name of the SELECT that would capture the filter's column, or a JOIN: the table is read through the filter.
    expect(filtered('SELECT k + 1 AS k FROM db.t WHERE k > 1', { additional_table_filters: "{'t': 'k < 9'}" })).toBe(
      'SELECT k + 1 AS k FROM (SELECT * FROM db.t WHERE k < 9) AS t WHERE k > 1',
    );
    expect(filtered('SELECT count() FROM db.t AS a GLOBAL JOIN db.t AS b USING k', { additional_table_filters: "{'b': 'k < 9'}" })).toBe(
      'SELECT count() FROM db.t AS a GLOBAL INNER JOIN (SELECT * FROM db.t WHERE k < 9) AS b USING (k)',
    );
    expect(filtered('SELECT count() FROM (SELECT k FROM db.t) WHERE k IN (SELECT k FROM db.t)', { additional_table_filters: "{'t': 'k < 9'}" })).toBe(
      'SELECT count() FROM (SELECT k FROM db.t WHERE k < 9) WHERE k IN (SELECT k FROM db.t WHERE k < 9)',
    );
    // A key naming no table of the query changes nothing; an empty map neither.
    expect(filtered('SELECT k FROM db.t', { additional_table_filters: "{'db.u': 'k < 9'}" })).toBe('SELECT k FROM db.t');
    expect(filtered('SELECT k FROM db.t', { additional_table_filters: '{}' })).toBe('SELECT k FROM db.t');
  });

  it('refuses what is not a map of strings, and a filter that does not parse', () => {
    for (const bad of ["{'t': 1}", "'x'", "{'t': 'k >'}", '{1: 2}'])
      expect(() => tableFiltersOf(bad).size && filtered('SELECT k FROM db.t', { additional_table_filters: bad }), bad).toThrow(ScatterError);
  });
});
