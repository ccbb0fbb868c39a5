// A GLOBAL IN / JOIN right side or a scalar subquery that the fast path refuses (an aggregate it
// cannot merge, a window function, ...; any, under distributed_group_by_no_merge, which it cuts unmerged
// as the main query), run once on the general path instead: the same two-stage
// planner and runtime as a main query, under the request's one deadline, in-flight cap and hedge policy.
// Asked for bytes (a scalar's value), the final stage answers TabSeparatedWithNamesAndTypes, which
// carries every type and aggregate state exactly to the shards. A set's or a JOIN's rows reach them as
// JSON, so a value JSON cannot carry exactly there (an aggregate state's bytes, bytes that are not
// UTF-8) is refused rather than shipped altered.
import { ScatterError } from '../../errors.js';
import type { PlanOptions } from '../../plan/types.js';
import type { GroupByNoMerge } from '../../plan/settings.js';
import type { QueryBudget } from '../query-budget.js';
import type { GeneralSubquery } from '../global-subquery.js';
import type { RunDeps } from '../query-types.js';
import { twoStageOptionsOf } from '../plan-inputs.js';
import { fastPathRefused } from './path.js';
import { runGeneralQuery } from './run-general.js';
import { splitTsvAnswer } from './tsv.js';
import { refuseAlikeTypes } from './final-output.js';

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
      // A JOIN reads its right side's columns by name: two different columns of one name would lose one. An IN set
      // and a scalar are read by position, so the final stage's own names serve.
      const { answerNames, ...plan } = planned;
      if (answerNames && !want?.positional)
        throw new ScatterError('UNSUPPORTED', 'a GLOBAL JOIN subquery whose answer has two different columns of one name is not supported on the general path');
      const r = await runGeneralQuery(
        {
          topo: deps.topo,
          invoker: deps.invoker,
          hedgeState: deps.hedgeState,
          queryId: deps.queryId,
          ...(deps.now ? { now: deps.now } : {}),
          ...(deps.onShard ? { onShard: deps.onShard } : {}),
        },
        plan,
        {
          deadline: budget.deadline,
          startedAt,
          hedge: budget.hedge,
          limiter: budget.limiter,
          settings,
          ...(want?.bytes ? { format: BYTES_FORMAT } : {}),
          requireComplete: false,
          runSubquery: self,
          ...(opts.distributedProductMode ? { distributedProductMode: opts.distributedProductMode } : {}),
          ...(opts.statistics ? { statistics: opts.statistics } : {}),
        },
      );
      if (want?.bytes) {
        const tsv = splitTsvAnswer(r.bytes!);
        if (answerNames)
          refuseAlikeTypes(
            answerNames,
            tsv.columns.map((c) => c.type),
          );
        return { meta: tsv.columns, rows: [], tsv: { body: tsv.body, rows: tsv.rows }, missing: r.missing };
      }
      const meta = r.meta!;
      if (answerNames)
        refuseAlikeTypes(
          answerNames,
          meta.map((c) => c.type),
        );
      const state = meta.find((m) => m.type.includes('AggregateFunction('));
      if (state || JSON.stringify(r.data).includes('\uFFFD'))
        throw new ScatterError(
          'UNSUPPORTED',
          `a GLOBAL IN or JOIN subquery over a distributed table that runs once before the shards answers ${state ? `an aggregate state (${state.type})` : 'bytes that are not UTF-8'}, ` +
            'which cannot travel to the shards exactly as a set yet; the fast path refused it: ' +
            (refusal as ScatterError).message,
        );
      return { meta, rows: r.data!, missing: r.missing };
    })();
  };
}
