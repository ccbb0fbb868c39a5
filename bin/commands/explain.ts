// `ch-scatter explain (--config FILE | --url URL) [--json] "SQL"`: how the query would run, per
// shard, without running it. With --config it plans locally and contacts no shard, except to run
// GLOBAL IN / JOIN subqueries: only then are temporary shard processes started.
import { PLANNERS } from '../../shared/core/scatter/planners.js';
import { randomUUID } from 'node:crypto';
import { parseArgs, type FlagSpec } from '../args.js';
import { errorLine, postJson, targetOf, loadConfig } from '../api-client.js';
import { runExplain } from '../../shared/core/scatter/run-query.js';
import { createHedgeState } from '../../shared/core/scatter/hedge.js';
import type { ShardInvoker } from '../../shared/core/scatter/invoker.js';
import type { Topology } from '../../shared/core/config/schema.js';
import { renderExplainText, type ExplainResponse } from '../../shared/core/plan/index.js';

export const summary =
  'show the per-shard SQL, skipped shards, shipped data and the merge, without running the query (--config plans locally; shard processes start only for GLOBAL subqueries)';
export const usage = 'explain (--config FILE | --url URL) [--json] "SQL"';
export const flags: FlagSpec = { config: 'string', url: 'string', json: 'boolean' };

/**
 * An invoker that starts local shard processes only when asked: the planner invokes shards only
 * for GLOBAL subqueries. `warm()` starts them before the query's deadline begins (process start
 * takes seconds and must not eat the subquery's time budget).
 */
function lazyLocalInvoker(topo: Topology): ShardInvoker & { stop(): Promise<void>; warm(): Promise<unknown> } {
  let started: ReturnType<typeof import('../../local/stack.js')['startLocalShards']> | undefined;
  const get = () => (started ??= import('../../local/stack.js').then((m) => m.startLocalShards(topo)));
  return {
    warm: get,
    async invoke(shard, payload, signal) {
      return (await get()).invoker.invoke(shard, payload, signal);
    },
    async stop() {
      if (started) await (await started).stop();
    },
  };
}

export async function run(args: string[]): Promise<number> {
  const p = parseArgs(args, flags, usage);
  const target = targetOf(p.flags);
  const sql = p.positionals.join(' ').trim();
  if (typeof target === 'string' || !sql) {
    console.error(typeof target === 'string' ? target : 'missing the SQL to explain');
    console.error(`usage: ch-scatter ${usage}`);
    return 2;
  }
  let res: { status: number; body: unknown };
  if (target.url) res = await postJson(`${target.url}/explain`, { sql });
  else {
    const topo = loadConfig(target);
    const invoker = lazyLocalInvoker(topo);
    try {
      if (/\bGLOBAL\b/i.test(sql)) await invoker.warm();
      res = await runExplain(
        { sql },
        {
          topo,
          invoker,
          ...PLANNERS,
          hedgeState: createHedgeState(),
          queryId: randomUUID(),
          behindApiGateway: false,
        },
      );
    } finally {
      await invoker.stop();
    }
  }
  if (res.status !== 200) {
    if (p.flags.json === true) console.log(JSON.stringify(res.body, null, 2));
    else console.error(errorLine(res.body));
    return 1;
  }
  console.log(p.flags.json === true ? JSON.stringify(res.body, null, 2) : renderExplainText(res.body as ExplainResponse));
  return 0;
}
