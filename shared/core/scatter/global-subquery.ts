// The one GLOBAL IN / JOIN runner: a right-hand side is planned and gathered once per request, under
// the request's deadline and in-flight cap, and its rows are handed to the planner. An oversized
// shard partial refuses the query (TOO_LARGE: the set cannot be built). Missing shards make a
// partial set where the request accepts a partial answer (POST /query: the main answer is then
// partial too), and INCOMPLETE_RESULT where it never does (/explain, the ClickHouse interface).
// A statement that reads no configured table (the planner's constant SELECT: the sharding key's
// constant operands) runs on one shard's engine (one-engine.ts).
import { ScatterError } from '../errors.js';
import type { ColumnMeta } from '../clickhouse/port.js';
import type { QueryPlan, SubqueryAnswer, SubqueryRunner } from '../plan/types.js';
import type { SelectStatement } from '../sql/ast.js';
import type { ShardOutcome } from './call-shard.js';
import { gather, type GatherInput, type MissingShard } from './gather.js';
import { tooLargeError } from './too-large.js';
import { isQueryFailure, queryFailureError } from './query-errors.js';
import { fastPathRefused } from './two-stage/path.js';
import { inexactInTsv } from './two-stage/tsv.js';
import { tablesRead } from '../plan/analyze.js';
import { distributedTables } from '../plan/two-stage/reads.js';
import { constantRunner } from './one-engine.js';
import { UnmergeableValue } from '../partials/values.js';

/** The fast path's answer (`names`, in order) holds values JSON rows carry without their types (`inexact`): the general path ships them as states. */
export class InexactRows extends ScatterError {
  readonly names: readonly string[];
  readonly inexact: readonly string[];
  constructor(meta: readonly ColumnMeta[]) {
    const inexact = meta.filter((m) => inexactInTsv([m]));
    super('UNSUPPORTED', `a GLOBAL subquery's ${inexact.map((c) => `${c.name} (${c.type})`).join(', ')} cannot travel exactly as rows`);
    this.names = meta.map((m) => m.name);
    this.inexact = inexact.map((m) => m.name);
  }
}

/** What a request's GLOBAL subqueries left for its answer: their outcomes, missing shards and cuts. */
export interface SubqueryLedger {
  outcomes: ShardOutcome[];
  missing: MissingShard[];
  truncated: string[];
  /** What runs before either path plans left (EXISTS folded into constants): kept when a path plans anew. */
  pinned?: { outcomes: number; missing: number; truncated: number };
  /**
   * Shard requests of runs the answer does not use (the fast path's, and its subqueries', where it refused the query after
   * they answered and the general path answered instead): no part of the answer, but they read rows, so of its price.
   */
  abandoned: ShardOutcome[];
}

export interface SubqueryPolicy {
  /** A subquery with missing shards is partial (listed in the ledger) rather than refused. */
  partial: boolean;
  /** The refusal names the missing shards in its details (the ClickHouse interface's exception text). */
  missingInDetails?: boolean;
}

/**
 * A subquery the fast path refuses, run on the general path (its two stages under the same budget);
 * undefined when the refusal stands.
 */
export type GeneralSubquery = (
  stmt: SelectStatement,
  self: SubqueryRunner,
  refusal: unknown,
  want?: Parameters<SubqueryRunner>[1],
) => Promise<SubqueryAnswer & { missing: MissingShard[]; outcomes: ShardOutcome[] }> | undefined;

export function globalSubqueryRunner(
  base: Omit<GatherInput, 'plan'>,
  planSubquery: (stmt: SelectStatement, self: SubqueryRunner) => Promise<QueryPlan>,
  policy: SubqueryPolicy,
  general?: GeneralSubquery,
): { run: SubqueryRunner; ledger: SubqueryLedger } {
  const ledger: SubqueryLedger = { outcomes: [], missing: [], truncated: [], abandoned: [] };
  const keepMissing = (missing: MissingShard[]) => {
    if (missing.length > 0 && !policy.partial) {
      throw new ScatterError(
        'INCOMPLETE_RESULT',
        `GLOBAL subquery incomplete: ${missing.map((m) => `shard ${m.shard} ${m.reason}`).join(', ')}`,
        policy.missingInDetails ? { details: { shards: { missing } } } : undefined,
      );
    }
    for (const m of missing) ledger.missing.push({ ...m, subquery: true, message: `GLOBAL subquery: ${m.message}` });
  };
  /** The subquery on the general path, where the fast path refused it; the refusal where nothing else answers. */
  const generally = async (stmt: SelectStatement, refusal: unknown, want: Parameters<SubqueryRunner>[1]) => {
    const other = general?.(stmt, run, refusal, want);
    if (!other) throw refusal;
    const { missing, outcomes, ...answer } = await other;
    ledger.outcomes.push(...outcomes);
    keepMissing(missing);
    return answer;
  };
  const constant = constantRunner(base, ledger.outcomes);
  const run: SubqueryRunner = async (stmt, want) => {
    // (One over a distributed table is not judged here: its shape is for its planning, which goes general on refusal.)
    if (distributedTables(stmt, base.topo).length === 0 && tablesRead(stmt, base.topo).length === 0) return constant(stmt);
    let plan: QueryPlan;
    try {
      plan = await planSubquery(stmt, run);
    } catch (e) {
      return generally(stmt, e, want);
    }
    // A value the merge has no value for (a JSON object) is refused as the rows arrive: the general path answers it.
    let g: Awaited<ReturnType<typeof gather>>;
    const spent: ShardOutcome[] = [];
    try {
      g = await gather({ ...base, plan, spentOnRefusal: spent });
    } catch (e) {
      if (!fastPathRefused(e)) throw e;
      // The refused run's requests read rows: the price counts them, the answer does not (a failure among them is the fast SQL's).
      ledger.abandoned.push(...spent);
      // Where the merger named the answer's columns, the general path carries the objects as states at once.
      return generally(stmt, e instanceof UnmergeableValue && e.answer ? new InexactRows(e.answer) : e, want);
    }
    ledger.outcomes.push(...g.outcomes);
    const big = tooLargeError(g.outcomes, 'GLOBAL subquery');
    if (big) throw big;
    // The subquery itself is wrong (an unknown column, a type error): ClickHouse's error, never a missing shard.
    const bad = g.outcomes.find(isQueryFailure);
    if (bad) throw queryFailureError(bad, {});
    keepMissing(g.missing);
    // Exact strings: the rows go back to the engines, which must read the bytes the values hold.
    let fin: ReturnType<typeof g.merger.finalize>;
    try {
      fin = g.merger.finalize({ exactStrings: true });
    } catch (e) {
      if (!fastPathRefused(e)) throw e;
      return generally(stmt, e, want);
    }
    // Two columns of one name keep one value per row here, and no shipped table holds both: the general path's final
    // stage names them apart (a set reads them by position, a JOIN the first one's values under the one name).
    if (new Set(fin.meta.map((m) => m.name)).size < fin.meta.length)
      return generally(stmt, new ScatterError('UNSUPPORTED', 'two different columns of one name in a GLOBAL subquery'), want);
    // A JSON, Dynamic or Variant value as JSON text loses its type (the shards would read the String "1" as the Int64 1): the general path ships it as a state.
    if (inexactInTsv(fin.meta)) return generally(stmt, new InexactRows(fin.meta), want);
    // A subquery cut by 'break' ships an incomplete set: the main answer is partial too.
    for (const t of fin.truncated ?? []) ledger.truncated.push(`GLOBAL subquery: ${t}`);
    return { meta: fin.meta, rows: fin.data };
  };
  return { run, ledger };
}

/** Forget what earlier runs left: a path that plans the query again runs its GLOBAL subqueries again (what they read stays in the price). */
export function clearLedger(ledger: SubqueryLedger): void {
  ledger.abandoned.push(...ledger.outcomes.slice(ledger.pinned?.outcomes ?? 0));
  ledger.outcomes.length = ledger.pinned?.outcomes ?? 0;
  ledger.missing.length = ledger.pinned?.missing ?? 0;
  ledger.truncated.length = ledger.pinned?.truncated ?? 0;
}

/** Keep what the ledger holds now through every later clearLedger (runs the statement itself depends on). */
export function pinLedger(ledger: SubqueryLedger): void {
  ledger.pinned = { outcomes: ledger.outcomes.length, missing: ledger.missing.length, truncated: ledger.truncated.length };
}
