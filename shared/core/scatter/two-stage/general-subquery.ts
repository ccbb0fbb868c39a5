// A GLOBAL IN / JOIN right side or a scalar subquery that the fast path refuses (an aggregate it
// cannot merge, a window function, a value it has no value for, ...; any, under distributed_group_by_no_merge,
// which it cuts unmerged as the main query), run once on the general path instead: the same two-stage
// planner and runtime as a main query, under the request's one deadline, in-flight cap and hedge policy.
// A set's or a JOIN's rows reach the shards as JSON where JSON carries them exactly; otherwise (a scalar's
// value, aggregate states, bytes that are not UTF-8, JSON, Dynamic or Variant values, a JOIN's two columns of
// one name) the final stage answers TabSeparatedWithNamesAndTypes, whose bytes the shards read back as they were.
import type { PlanOptions } from '../../plan/types.js';
import type { GroupByNoMerge } from '../../plan/settings.js';
import type { QueryBudget } from '../query-budget.js';
import { InexactRows, type GeneralSubquery } from '../global-subquery.js';
import type { RunDeps } from '../query-types.js';
import type { ShardOutcome } from '../call-shard.js';
import { twoStageOptionsOf } from '../plan-inputs.js';
import { fastPathRefused } from './path.js';
import { runGeneralQuery } from './run-general.js';
import { inexactInTsv, splitTsvAnswer } from './tsv.js';
import { refuseAlikeTypes } from './final-output.js';
import { answerAsStates } from './state-carrier.js';
import type { ColumnMeta } from '../../clickhouse/port.js';
import type { ReadBackColumn } from '../../plan/read-back.js';

/** The format a scalar's value is asked in: its header names the types the shards read it back as. */
const BYTES_FORMAT = 'TabSeparatedWithNamesAndTypes';

type Deps = Pick<RunDeps, 'topo' | 'invoker' | 'hedgeState' | 'queryId' | 'planTwoStage' | 'onShard' | 'now'>;

export function generalSubquery(
  deps: Deps,
  budget: QueryBudget,
  startedAt: number,
  options: (self: Parameters<GeneralSubquery>[1]) => PlanOptions,
  noMerge: GroupByNoMerge,
): GeneralSubquery {
  return (stmt, self, refusal, want) => {
    const planTwoStage = deps.planTwoStage;
    if (!planTwoStage || !fastPathRefused(refusal)) return undefined;
    return (async () => {
      const opts = options(self);
      const settings = opts.settings ?? {};
      const planned = planTwoStage(stmt, deps.topo, { ...twoStageOptionsOf(settings, deps.topo), ...(noMerge ? { groupByNoMerge: noMerge } : {}) });
      // The final stage names two different columns of one name apart: an IN set and a scalar are read by position,
      // so its names serve; a JOIN reads its right side by name, so the shards read them back under the one name.
      const { answerNames, ...plan } = planned;
      // Each run's shard requests, for the request's accounting and timeline.
      const outcomes: ShardOutcome[] = [];
      const run = (finalSql: string, bytes: boolean) =>
        runGeneralQuery(
          {
            topo: deps.topo,
            invoker: deps.invoker,
            hedgeState: deps.hedgeState,
            queryId: deps.queryId,
            ...(deps.now ? { now: deps.now } : {}),
            ...(deps.onShard ? { onShard: deps.onShard } : {}),
          },
          { ...plan, finalSql },
          {
            deadline: budget.deadline,
            startedAt,
            hedge: budget.hedge,
            limiter: budget.limiter,
            settings,
            ...(bytes ? { format: BYTES_FORMAT } : {}),
            requireComplete: false,
            runSubquery: self,
            ...(opts.distributedProductMode ? { distributedProductMode: opts.distributedProductMode } : {}),
            ...(opts.statistics ? { statistics: opts.statistics } : {}),
          },
        ).then((r) => {
          outcomes.push(...r.outcomes);
          return r;
        });
      const alikeByName = answerNames !== undefined && !want?.positional;
      let wrapped = new Set<string>();
      let names: string[] = [];
      // The fast path's answer named the columns that travel as states: the final stage names them alike (no two share
      // a name), so they are wrapped at once, one run instead of two.
      if (refusal instanceof InexactRows && !answerNames) {
        names = [...refusal.names];
        wrapped = new Set(refusal.inexact);
      }
      if (!want?.bytes && !alikeByName && !wrapped.size) {
        const r = await run(plan.finalSql, false);
        const meta = r.meta!;
        if (answerNames)
          refuseAlikeTypes(
            answerNames,
            meta.map((c) => c.type),
          );
        // Rows as JSON carry every other value exactly to the shards.
        if (!meta.some((m) => m.type.includes('AggregateFunction(') || inexactInTsv([m])) && !JSON.stringify(r.data).includes('\uFFFD'))
          return { meta, rows: r.data!, missing: r.missing, outcomes };
        names = meta.map((m) => m.name);
        wrapped = new Set(meta.filter((m) => inexactInTsv([m])).map((m) => m.name));
      }
      // The engine's TabSeparated bytes: exact for every type, aggregate states and bytes that are not UTF-8 included,
      // but a JSON, Dynamic or Variant value, which travels as a state of itself (its type shows in the answer's header).
      for (;;) {
        const r = await run(wrapped.size ? answerAsStates(plan.finalSql, names, wrapped) : plan.finalSql, true);
        const tsv = splitTsvAnswer(r.bytes!);
        // A wrapped column's header is its state's type: what still shows a JSON, Dynamic or Variant type went unwrapped
        // (a guess from the fast path's answer that missed it), and is asked again wrapped, never shipped as text.
        const inexact = tsv.columns.filter((c) => inexactInTsv([c]) && !wrapped.has(c.name));
        if (inexact.length) {
          if (!wrapped.size) names = tsv.columns.map((c) => c.name);
          wrapped = new Set([...wrapped, ...inexact.map((c) => c.name)]);
          continue;
        }
        if (answerNames)
          refuseAlikeTypes(
            answerNames,
            tsv.columns.map((c) => c.type),
          );
        const readBack = wrapped.size || alikeByName ? readBackOf(tsv.columns, alikeByName ? answerNames : undefined, wrapped) : undefined;
        return { meta: tsv.columns, rows: [], tsv: { body: tsv.body, rows: tsv.rows }, ...(readBack ? { readBack } : {}), missing: r.missing, outcomes };
      }
    })();
  };
}

/** Each column read back: from its state where it travels as one, and under the answer's name where two share it (the first one's values, as ClickHouse reads them). */
function readBackOf(columns: readonly ColumnMeta[], answerNames: readonly string[] | undefined, wrapped: ReadonlySet<string>): ReadBackColumn[] {
  return columns.map((c, i) => {
    const name = answerNames?.[i] ?? c.name;
    const from = answerNames ? columns[answerNames.indexOf(name)]!.name : c.name;
    return { from, name, ...(wrapped.has(from) ? { state: true } : {}) };
  });
}
