// The sharding key's constant operands (`key = toUInt64(3)`, `key = 1 + 2`, `key IN (1 + 1, 3)`), folded
// before the shards are chosen, as ClickHouse's analyzer folds them: one SELECT of every distinct
// operand, run once through the request's subquery runner (a statement that reads no table runs on one
// shard's engine), each value read back as the literal key-literal.ts then converts to the key's type.
// A value of a type no literal spells exactly here (a Date, an Enum, a Tuple...) stays unfolded, and so
// goes to every shard. An operand the engine refuses fails the query with ClickHouse's error, at it.
import type { Expr, SelectQuery, SettingItem } from '../sql/ast.js';
import type { ColumnMeta, SettingValue } from '../clickhouse/port.js';
import { INTEGER_TYPE, unwrapType } from '../clickhouse/type-wrappers.js';
import { isScatterError, ScatterError } from '../errors.js';
import { mapClausesShared, walkExpr, type Clause } from '../sql/visit.js';
import { constantText, isFoldableOperand } from './constant-operand.js';
import { isKeyRef, setItems, type KeyContext } from './key-context.js';
import { keyLiteral, UNEVALUATED } from './key-literal.js';
import { positionOf } from './position.js';
import type { SubqueryRunner } from './types.js';

const FILTER_CLAUSES: ReadonlySet<Clause> = new Set(['where', 'prewhere', 'joinOn']);

/** The operands skipping and IN pruning would leave unevaluated, by text (the first node of each text). */
function foldableOperands(ctx: KeyContext, q: SelectQuery): Map<string, Expr> {
  const out = new Map<string, Expr>();
  const consider = (e: Expr) => {
    if (e.kind === 'literal' || !isFoldableOperand(e)) return;
    let v: unknown;
    try {
      v = keyLiteral(e, ctx.type, ctx.column);
    } catch {
      return; // a literal in a CAST that does not convert: key-literal's own error, raised by the planner
    }
    const text = constantText(e);
    if (v === UNEVALUATED && !out.has(text)) out.set(text, e);
  };
  mapClausesShared(q, (root, clause) => {
    if (!FILTER_CLAUSES.has(clause)) return root;
    walkExpr(root, (e) => {
      // A lambda's parameter may shadow the key; a subquery's key is another table's.
      if (e.kind === 'lambda' || e.kind === 'subquery') return false;
      if (e.kind !== 'function' || e.args.length !== 2) return;
      const [l, r] = e.args as [Expr, Expr];
      if (e.name === 'equals') {
        if (isKeyRef(ctx, l)) consider(r);
        else if (isKeyRef(ctx, r)) consider(l);
      } else if (e.name === 'in' && isKeyRef(ctx, l)) for (const item of setItems(r) ?? []) consider(item);
    });
    return root;
  });
  return out;
}

function settingLiteral(v: SettingValue): Expr {
  if (typeof v === 'string') return { kind: 'literal', type: 'string', value: v };
  if (typeof v === 'boolean') return { kind: 'literal', type: 'integer', value: v ? '1' : '0' };
  return { kind: 'literal', type: Number.isInteger(v) ? 'integer' : 'float', value: String(v) };
}

/** `SELECT <operand> AS _c0, ... SETTINGS <the forwarded settings>`: each operand as a shard would evaluate it. */
function constantSelect(operands: readonly Expr[], settings: Record<string, SettingValue>): SelectQuery {
  const items: SettingItem[] = Object.entries(settings).map(([name, v]) => ({ name, value: settingLiteral(v) }));
  return {
    kind: 'select',
    distinct: false,
    columns: operands.map((e, i) => ({ ...e, alias: `_c${i}` }) as Expr),
    withTotals: false,
    ...(items.length ? { settings: items } : {}),
  };
}

/** The engine's value of one column as the literal it equals, or undefined when no literal spells it exactly. */
export function valueLiteral(value: unknown, meta: ColumnMeta): Expr | undefined {
  const t = unwrapType(meta.type).inner;
  if (value === null || value === undefined) return { kind: 'literal', type: 'null', value: 'NULL' };
  const text = String(value);
  if (INTEGER_TYPE.test(t)) return /^-?\d+$/.test(text) ? { kind: 'literal', type: 'integer', value: text } : undefined;
  if (/^(?:Float(32|64)|BFloat16)$/.test(t)) return { kind: 'literal', type: 'float', value: text };
  if (/^Decimal/.test(t)) {
    const whole = /^(-?\d+)(?:\.0*)?$/.exec(text);
    return whole ? { kind: 'literal', type: 'integer', value: whole[1]! } : { kind: 'literal', type: 'float', value: text };
  }
  if (t === 'Bool') return { kind: 'literal', type: 'bool', value: value === true || text === 'true' ? 'true' : 'false' };
  if (t === 'String' || /^FixedString\(\d+\)$/.test(t)) return { kind: 'literal', type: 'string', value: text };
  return undefined;
}

/** The operand's error (ClickHouse's code), at the operand. */
function at(e: unknown, node: Expr): unknown {
  if (!isScatterError(e) || (e.code !== 'QUERY_ERROR' && e.code !== 'LIMIT_EXCEEDED')) return e;
  const position = positionOf(node);
  return new ScatterError(e.code, e.message, { ...(position ? { position } : {}), ...(e.details ? { details: e.details } : {}) });
}

/**
 * The folded value of each constant operand on the key in WHERE, PREWHERE and JOIN ON, by its text
 * (KeyContext.constants); undefined when there is none or no runner to fold them.
 */
export async function foldKeyConstants(
  ctx: KeyContext,
  q: SelectQuery,
  opts: { run: SubqueryRunner | undefined; settings: Record<string, SettingValue> },
): Promise<Map<string, Expr> | undefined> {
  if (!opts.run) return undefined;
  const operands = foldableOperands(ctx, q);
  if (operands.size === 0) return undefined;
  const nodes = [...operands.values()];
  const run = (some: readonly Expr[]) => opts.run!(constantSelect(some, opts.settings));
  let answer: Awaited<ReturnType<SubqueryRunner>>;
  try {
    answer = await run(nodes);
  } catch (e) {
    if (nodes.length === 1) throw at(e, nodes[0]!);
    // Which operand: each alone, in the query's order (a refusal is rare; the first one is ClickHouse's).
    for (const n of nodes) await run([n]).catch((one: unknown) => Promise.reject(at(one, n)));
    throw e;
  }
  const row = answer.rows.length === 1 ? answer.rows[0]! : undefined;
  if (!row || answer.meta.length !== nodes.length) return undefined;
  const out = new Map<string, Expr>();
  nodes.forEach((n, i) => {
    const lit = valueLiteral(row[answer.meta[i]!.name], answer.meta[i]!);
    if (lit) out.set(constantText(n), n.pos ? ({ ...lit, pos: n.pos } as Expr) : lit);
  });
  return out;
}
