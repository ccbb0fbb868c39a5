// A Runner (harness.ts) for the two-stage PLAN, without the runtime: planTwoStage, each leaf through
// the ordinary per-shard rewrite (planQueryWith with a pass-through split) and queryRaw on every shard
// engine (FORMAT TabSeparatedWithNamesAndTypes), the shards' bodies (headers stripped, concatenated in
// `arrival` order) as the final stage's stage tables, and finalSql on shard 0's engine as FORMAT JSON.
// GLOBAL IN right sides run through this same runner (what a scatter of them returns).
import type { ClickHouseAccess } from '../../shared/core/clickhouse/port.js';
import type { Topology } from '../../shared/core/config/schema.js';
import { planQueryWith } from '../../shared/core/plan/build.js';
import { withContextValues } from '../../shared/core/plan/context-values.js';
import { planTwoStage } from '../../shared/core/plan/two-stage/plan.js';
import { splitTsvAnswer } from '../../shared/core/scatter/two-stage/tsv.js';
import type { SubqueryRunner } from '../../shared/core/plan/types.js';
import { parseSelect } from '../../shared/core/sql/parse.js';
import { printSelect } from '../../shared/core/sql/print.js';
import { parseJsonBody } from '../support/json-engine/json-engine.js';
import { passThroughSplit } from '../unit/plan/fixtures.js';
import { type Answer, EXACT_JSON_SETTINGS, type Runner } from './harness.js';

export function twoStagePlanRunner(topo: Topology, shards: readonly ClickHouseAccess[], arrival?: readonly number[]): Runner {
  const run: Runner = async (sql) => {
    // currentDatabase() as the JSON API's session replaces it (run-query.ts) before any plan.
    const plan = planTwoStage(withContextValues(parseSelect(sql), { database: 'default' }), topo);
    const runSubquery: SubqueryRunner = async (stmt) => {
      const a = await run(printSelect(stmt));
      return { meta: a.meta, rows: a.rows };
    };
    const tables = [];
    for (const leaf of plan.leaves) {
      const perShard = await planQueryWith(
        leaf.query,
        topo,
        { runSubquery, ...(leaf.distributedProductMode ? { distributedProductMode: leaf.distributedProductMode } : {}) },
        passThroughSplit,
      );
      const live = perShard.shards.filter((s) => !s.skipped);
      const parts = await Promise.all(
        live.map(async (s) => {
          const external = perShard.external.filter((t) => s.external.includes(t.name)).map((t) => s.externalOverrides?.find((o) => o.name === t.name) ?? t);
          const raw = await shards[s.shard]!.queryRaw(s.sql!, {
            format: 'TabSeparatedWithNamesAndTypes',
            settings: perShard.settings,
            ...(external.length ? { external } : {}),
          });
          return splitTsvAnswer(raw.bytes);
        }),
      );
      const order = (arrival ?? parts.map((_p, i) => i)).filter((i) => i < parts.length);
      for (let i = 0; i < parts.length; i++) if (!order.includes(i)) order.push(i);
      tables.push({ name: leaf.name, columns: parts[0]!.columns, data: Buffer.concat(order.map((i) => parts[i]!.body)) });
    }
    const out = await shards[0]!.queryRaw(plan.finalSql, { format: 'JSON', tables, settings: EXACT_JSON_SETTINGS });
    const body = parseJsonBody(out.bytes.toString());
    const answer: Answer = { meta: body.meta.map((m) => ({ name: m.name, type: m.type })), rows: body.data };
    if (body.totals !== undefined) answer.totals = body.totals;
    return answer;
  };
  return run;
}
