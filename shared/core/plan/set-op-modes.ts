// A bare UNION / EXCEPT / INTERSECT takes the query's default mode, settled once before either path
// plans, so every engine (18.16 included, and a final stage that never sees the request's settings)
// runs the mode the client's settings chose. As ClickHouse 26: union_default_mode is empty by
// default, so a bare UNION is 558 EXPECTED_ALL_OR_DISTINCT; except_default_mode and
// intersect_default_mode are 'ALL'. A value other than '', 'ALL' or 'DISTINCT' is 557 UNKNOWN_UNION.
import type { SettingValue } from '../clickhouse/port.js';
import type { Expr, SetOperator, SelectStatement } from '../sql/ast.js';
import { forEachStatement } from '../sql/visit.js';
import { errorAt } from './position.js';

type Word = 'UNION' | 'EXCEPT' | 'INTERSECT';

const SETTING: Record<Word, string> = { UNION: 'union_default_mode', EXCEPT: 'except_default_mode', INTERSECT: 'intersect_default_mode' };
const DEFAULT: Record<Word, string> = { UNION: '', EXCEPT: 'ALL', INTERSECT: 'ALL' };
/** The query names ClickHouse's message gives each operator. */
const QUERY: Record<Word, string> = { UNION: 'SelectWithUnion', EXCEPT: 'EXCEPT', INTERSECT: 'INTERSECT' };

/** The setting names this file settles (read by the planner, never forwarded). */
export const SET_OPERATION_MODE_SETTINGS: readonly string[] = Object.values(SETTING);

/** Throws 557 unless `value` is a mode ClickHouse knows: '', 'ALL' or 'DISTINCT' (as written). */
export function checkSetOperationMode(value: SettingValue, node?: { pos?: Expr['pos'] }): string {
  const v = String(value);
  if (v === '' || v === 'ALL' || v === 'DISTINCT') return v;
  throw errorAt('BAD_REQUEST', `Unexpected value of SetOperationMode: '${v}'. Must be one of ['DISTINCT', 'ALL', '']`, node, {
    clickhouse: { code: 557, name: 'UNKNOWN_UNION' },
  });
}

/** The statement with every bare set operator, at any depth, given its mode (in place on its chains). */
export function settleSetOperators(stmt: SelectStatement, request: Record<string, SettingValue> | undefined): SelectStatement {
  const top = stmt.settings;
  // The outer clause wins over the request (a subquery's clause may not set them: nested-settings.ts).
  const modeOf = (word: Word): { mode: string } => {
    const name = SETTING[word];
    const item = top?.find((s) => s.name === name);
    if (item) {
      const v = item.value;
      return { mode: checkSetOperationMode(v.kind === 'literal' ? v.value : '?', v) };
    }
    const asked = request?.[name];
    return { mode: asked === undefined ? DEFAULT[word] : checkSetOperationMode(asked) };
  };
  forEachStatement(stmt, (s) => {
    if (s.kind !== 'union' || !s.ops.some((op) => op === 'UNION' || op === 'EXCEPT' || op === 'INTERSECT')) return;
    s.ops = s.ops.map((op, i): SetOperator => {
      if (op !== 'UNION' && op !== 'EXCEPT' && op !== 'INTERSECT') return op;
      const { mode } = modeOf(op);
      if (mode === '')
        throw errorAt('QUERY_ERROR', `Expected ALL or DISTINCT in ${QUERY[op]} query, because setting (${SETTING[op]}) is empty`, s.selects[i + 1], {
          clickhouse: { code: 558, name: 'EXPECTED_ALL_OR_DISTINCT' },
        });
      return `${op} ${mode}` as SetOperator;
    });
  });
  return stmt;
}
