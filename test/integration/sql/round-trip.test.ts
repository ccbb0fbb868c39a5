// Golden round trip: every corpus query parses, prints, re-parses to the same AST (positions
// aside), prints identically again, and the printed text runs on chdb (ClickHouse 26) with the
// same result (columns, types and rows) as the original text.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseSelect } from '../../../shared/core/sql/parse.js';
import { printSelect } from '../../../shared/core/sql/print.js';
import { equalStatement } from '../../../shared/core/sql/visit.js';
import { ROUND_TRIP_CORPUS } from './corpus.js';
import { openEngine, type SqlTestEngine } from './chdb-session.js';

let engine: SqlTestEngine;
beforeAll(() => {
  engine = openEngine('roundtrip');
});
afterAll(() => engine?.close());

// Output without timing statistics, rows sorted (queries without ORDER BY have no fixed order).
function normalizedResult(sql: string): string {
  const raw = engine.session.query(sql, 'JSON');
  try {
    const j = JSON.parse(raw) as { meta: unknown; data: unknown[]; totals?: unknown; rows: number };
    return JSON.stringify({ meta: j.meta, data: j.data.map((r) => JSON.stringify(r)).sort(), totals: j.totals, rows: j.rows });
  } catch {
    return raw.split('\n').sort().join('\n');
  }
}

describe('round trip corpus', () => {
  it('has at least 150 queries', () => expect(ROUND_TRIP_CORPUS.length).toBeGreaterThanOrEqual(150));

  for (const sql of ROUND_TRIP_CORPUS) {
    it(sql.replace(/\s+/g, ' ').slice(0, 120), () => {
      const ast = parseSelect(sql);
      const printed = printSelect(ast);
      const again = parseSelect(printed);
      expect(equalStatement(again, ast, { strict: true }), printed).toBe(true);
      expect(printSelect(again)).toBe(printed);
      expect(printed).not.toMatch(/\n/);
      expect(normalizedResult(printed)).toBe(normalizedResult(sql));
    });
  }
});
