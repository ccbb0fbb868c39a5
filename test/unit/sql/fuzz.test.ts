// Property tests: the parser never fails with anything but a ScatterError (no crash, no hang),
// whatever the input; whatever it accepts prints back to text that parses to the same AST; and
// generated ASTs (of the shapes the parser produces) round-trip print -> parse.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { ScatterError } from '../../../shared/core/errors.js';
import { parseSelect } from '../../../shared/core/sql/parse.js';
import { printSelect } from '../../../shared/core/sql/print.js';
import { equalStatement } from '../../../shared/core/sql/visit.js';
import type { SelectQuery, SelectStatement } from '../../../shared/core/sql/ast.js';
import { exprArb, statementArb } from './ast-arbitrary.js';
import { ROUND_TRIP_CORPUS } from '../../integration/sql/corpus.js';

/** parseSelect, but any non-ScatterError is a test failure; returns undefined on a ScatterError. */
function tryParse(sql: string): SelectStatement | undefined {
  try {
    return parseSelect(sql);
  } catch (e) {
    if (!(e instanceof ScatterError)) throw new Error(`non-ScatterError for ${JSON.stringify(sql)}: ${String(e)}`);
    // QUERY_ERROR: what ClickHouse refuses with its own code once parsed (WITH TIES without ORDER BY, 476), with a position.
    expect(['SYNTAX_ERROR', 'NOT_READ_ONLY', 'UNSUPPORTED', 'TOO_LARGE', 'QUERY_ERROR']).toContain(e.code);
    if (e.code === 'QUERY_ERROR') expect(e.position).toBeDefined();
    if (e.code === 'SYNTAX_ERROR') {
      // The position points inside the input (or just past its end).
      expect(e.position).toBeDefined();
      const lines = sql.split('\n');
      expect(e.position!.line).toBeGreaterThanOrEqual(1);
      expect(e.position!.line).toBeLessThanOrEqual(lines.length);
      expect(e.position!.column).toBeGreaterThanOrEqual(1);
      expect(e.position!.column).toBeLessThanOrEqual(lines[e.position!.line - 1]!.length + 1);
    }
    return undefined;
  }
}

function expectRoundTrip(ast: SelectStatement): void {
  const printed = printSelect(ast);
  let again: SelectStatement;
  try {
    again = parseSelect(printed);
  } catch (e) {
    throw new Error(`printed text does not parse: ${printed}\n${String(e)}`);
  }
  if (!equalStatement(again, ast, { strict: true })) {
    throw new Error(`round trip changed the AST:\n${printed}\n${printSelect(again)}\n${JSON.stringify(ast)}\n${JSON.stringify(again)}`);
  }
}

const TOKENS = [
  'SELECT',
  'FROM',
  'WHERE',
  'AND',
  'OR',
  'NOT',
  'IN',
  'GLOBAL',
  'JOIN',
  'ON',
  'USING',
  '(',
  ')',
  ',',
  '.',
  '[',
  ']',
  "'",
  '`',
  '"',
  '-',
  '--',
  '/*',
  '*/',
  '#',
  '+',
  '*',
  '/',
  '=',
  '<',
  '>',
  '?',
  ':',
  '::',
  '->',
  '||',
  '1',
  '0x',
  '1e',
  'NULL',
  'CASE',
  'WHEN',
  'THEN',
  'END',
  'CAST',
  'AS',
  'INTERVAL',
  'DAY',
  'LIMIT',
  'BY',
  'GROUP',
  'ORDER',
  'UNION',
  'ALL',
  'WITH',
  'SETTINGS',
  'FORMAT',
  ';',
  '{p:UInt8}',
  '{',
  '}',
  '\\',
  '\n',
  ' ',
  'ARRAY',
  'FINAL',
  'SAMPLE',
  'IS',
  'BETWEEN',
  'LIKE',
  'DISTINCT',
  'TOTALS',
  'x',
  'tuple',
  'count',
  '*',
  'inf',
  '\u00e9',
  '\ud83d\ude00',
  '\ud800',
];

describe('fuzz: arbitrary input only ever raises ScatterError', () => {
  it('random strings', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 200, unit: 'binary' }), (s) => {
        const ast = tryParse(s);
        if (ast) expectRoundTrip(ast);
        const ast2 = tryParse('SELECT ' + s);
        if (ast2) expectRoundTrip(ast2);
      }),
      { numRuns: 3000 },
    );
  });

  it('random token soups', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...TOKENS), { maxLength: 40 }), fc.boolean(), (toks, spaced) => {
        const s = 'SELECT ' + toks.join(spaced ? ' ' : '');
        const ast = tryParse(s);
        if (ast) expectRoundTrip(ast);
      }),
      { numRuns: 3000 },
    );
  });

  it('mutations of valid queries: parse or fail cleanly; whatever parses round-trips', () => {
    const mutation = fc.record({
      query: fc.constantFrom(...ROUND_TRIP_CORPUS),
      ops: fc.array(
        fc.record({
          kind: fc.constantFrom('delete', 'insert', 'duplicate', 'replace'),
          at: fc.nat(),
          len: fc.integer({ min: 1, max: 8 }),
          token: fc.constantFrom(...TOKENS),
        }),
        { minLength: 1, maxLength: 3 },
      ),
    });
    fc.assert(
      fc.property(mutation, ({ query, ops }) => {
        let s = query;
        for (const op of ops) {
          const at = op.at % (s.length + 1);
          if (op.kind === 'delete') s = s.slice(0, at) + s.slice(at + op.len);
          else if (op.kind === 'insert') s = `${s.slice(0, at)} ${op.token} ${s.slice(at)}`;
          else if (op.kind === 'duplicate') s = s.slice(0, at + op.len) + s.slice(at, at + op.len) + s.slice(at + op.len);
          else s = s.slice(0, at) + op.token + s.slice(at + op.len);
        }
        const ast = tryParse(s);
        if (ast) expectRoundTrip(ast);
      }),
      { numRuns: 4000 },
    );
  });

  it('every corpus query round-trips through the printer', () => {
    for (const q of ROUND_TRIP_CORPUS) expectRoundTrip(parseSelect(q));
  });

  it('pathological inputs finish quickly', () => {
    const inputs = [
      'SELECT ' + '('.repeat(100_000),
      'SELECT ' + "'".repeat(100_001),
      'SELECT ' + '/*'.repeat(50_000),
      'SELECT a IN (' + '1,'.repeat(200_000) + ')',
      'SELECT ' + 'a,'.repeat(100_000) + 'a',
      'SELECT ' + 'x.'.repeat(100_000) + 'y',
      'SELECT ' + '[1],'.repeat(50_000) + '1',
      'SELECT ' + 'f(1)'.repeat(50_000),
      'SELECT 1 ' + 'UNION ALL SELECT 1 '.repeat(20_000),
    ];
    for (const s of inputs) {
      const t0 = performance.now();
      tryParse(s);
      expect(performance.now() - t0).toBeLessThan(5000); // 50-700 ms each on a loaded 2-core box: the point is "no hang"
    }
  });
});

describe('generated ASTs round-trip print -> parse', () => {
  it('expressions in a SELECT list and WHERE', () => {
    fc.assert(
      fc.property(fc.array(exprArb, { minLength: 1, maxLength: 3 }), exprArb, (cols, where) => {
        const w = { ...where };
        const q: SelectQuery = {
          kind: 'select',
          distinct: false,
          withTotals: false,
          columns: cols,
          from: { table: { kind: 'table', table: 't' }, joins: [] },
          where: w,
        };
        expectRoundTrip(q);
      }),
      { numRuns: 3000 },
    );
  });
});

describe('generated statements round-trip print -> parse', () => {
  it('every clause, joins, unions', () => {
    fc.assert(
      fc.property(statementArb, (st) => expectRoundTrip(st)),
      { numRuns: 2000 },
    );
  });
});
