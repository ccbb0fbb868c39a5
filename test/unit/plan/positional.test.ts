// Positions settled before planning: a position becomes the column it names, a constant key a CAST no
// engine reads as a position, and a position past the SELECT list is ClickHouse's 36 with its place.
// (The answers over real shards: test/oracle/clickhouse-tests.test.ts, 00257_* and 01244_*.)
import { describe, expect, it } from 'vitest';
import { settlePositions } from '../../../shared/core/plan/positional.js';
import { printSelect } from '../../../shared/core/sql/print.js';
import { parseSelect } from '../../../shared/core/sql/parse.js';

const settle = (sql: string, settings?: Record<string, string | number>) => printSelect(settlePositions(parseSelect(sql), settings));

describe('settlePositions', () => {
  it('resolves a position to the column it names: by alias, by expression, or as a pinned constant', () => {
    expect(settle('SELECT a + 1 AS x, b FROM t GROUP BY 1, 2 ORDER BY 2 DESC')).toBe('SELECT a + 1 AS x, b FROM t GROUP BY x, b ORDER BY b DESC');
    expect(settle('SELECT count(), 42 AS z FROM t GROUP BY 2')).toBe("SELECT count(), 42 AS z FROM t GROUP BY CAST(42, 'UInt8')");
    expect(settle('SELECT a FROM t LIMIT 1 BY 1')).toBe('SELECT a FROM t LIMIT 1 BY a');
  });

  it('pins an alias of a constant, so an engine never reads the expanded literal as a position', () => {
    expect(settle('SELECT count(), 42 AS z FROM t GROUP BY z')).toBe("SELECT count(), 42 AS z FROM t GROUP BY CAST(42, 'UInt8')");
    expect(settle('WITH 70000 AS k SELECT count() FROM t GROUP BY k')).toBe("WITH 70000 AS k SELECT count() FROM t GROUP BY CAST(70000, 'UInt32')");
  });

  it('reads integers as constants under enable_positional_arguments = 0, from the clause or the request', () => {
    expect(settle('SELECT 43 AS z FROM t GROUP BY 42, 43 SETTINGS enable_positional_arguments = 0')).toBe(
      "SELECT 43 AS z FROM t GROUP BY CAST(42, 'UInt8'), CAST(43, 'UInt8') SETTINGS enable_positional_arguments = 0",
    );
    expect(settle('SELECT a FROM t ORDER BY 1', { enable_positional_arguments: 0 })).toBe("SELECT a FROM t ORDER BY CAST(1, 'UInt8')");
    expect(settle('SELECT a FROM t ORDER BY 1 SETTINGS enable_positional_arguments = 1', { enable_positional_arguments: 0 })).toBe(
      'SELECT a FROM t ORDER BY a SETTINGS enable_positional_arguments = 1',
    );
  });

  it('refuses a position past the SELECT list with ClickHouse’s 36 and the literal’s place', () => {
    let err: any;
    try {
      settle('SELECT a, b\nFROM t GROUP BY 3');
    } catch (e) {
      err = e;
    }
    expect(err?.code).toBe('BAD_REQUEST');
    expect(err?.message).toMatch(/Positional argument number 3 is out of bounds\. Expected in range \[1, 2\].*line 2, column 17/);
    expect(err?.details?.clickhouse).toEqual({ code: 36, name: 'BAD_ARGUMENTS' });
  });

  it('leaves every union member settled and a SELECT * unresolved', () => {
    expect(settle('SELECT a FROM t GROUP BY 1 UNION ALL SELECT b FROM t GROUP BY 1')).toBe('SELECT a FROM t GROUP BY a UNION ALL SELECT b FROM t GROUP BY b');
    expect(settle('SELECT * FROM t ORDER BY 1')).toBe('SELECT * FROM t ORDER BY 1');
  });
});
