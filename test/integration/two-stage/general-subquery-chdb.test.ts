// A GLOBAL subquery the fast path refused, run on the general path over three chdb shards: the columns the fast
// path's answer named as JSON, Dynamic or Variant travel as states from the first run, and a column that answer
// missed (or typed otherwise) is found in the general path's own header and asked again wrapped, never shipped as text.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_TABLE } from '../../../local/demo.js';
import { queryBudget } from '../../../shared/core/scatter/query-budget.js';
import { InexactRows } from '../../../shared/core/scatter/global-subquery.js';
import { generalSubquery } from '../../../shared/core/scatter/two-stage/general-subquery.js';
import { parseSelect } from '../../../shared/core/sql/parse.js';
import type { SubqueryRunner } from '../../../shared/core/plan/types.js';
import { demoRunDeps, startDemoChdb, type DemoChdb } from '../../support/demo-chdb.js';

process.env.POWERTOOLS_LOG_LEVEL = 'SILENT';
let demo: DemoChdb;
beforeAll(async () => {
  demo = await startDemoChdb({ rows: 300 });
}, 120_000);
afterAll(async () => {
  await demo?.cluster.stop();
});

const SQL = `SELECT sensor, ts, '{"a":1}'::JSON AS j, toString(status)::Dynamic AS d FROM ${DEMO_TABLE} ORDER BY sensor, ts LIMIT 3`;
/** The fast path's answer's first columns, as it would name and type them. */
const NAMED = [
  { name: 'sensor', type: 'String' },
  { name: 'ts', type: 'DateTime' },
  { name: 'j', type: 'JSON' },
];
const noSubqueries: SubqueryRunner = () => Promise.reject(new Error('no subquery here'));

async function run(named: { name: string; type: string }[]) {
  const deps = demoRunDeps(demo, 'q-general-subquery');
  const now = Date.now();
  const sub = generalSubquery(deps, queryBudget(deps.topo, {}, { timeoutMs: 20_000 }, now), now, () => ({ settings: {} }), 0);
  const answer = await sub(parseSelect(SQL), noSubqueries, new InexactRows(named));
  return { answer: answer! };
}

describe("a refused GLOBAL subquery's values that TabSeparated cannot carry", () => {
  it('travel as states where the fast path named them', async () => {
    const { answer } = await run([...NAMED, { name: 'd', type: 'Dynamic' }]);
    expect(answer.readBack?.filter((c) => c.state).map((c) => c.name)).toEqual(['j', 'd']);
    expect(answer.tsv?.rows).toBe(3);
  });
  it('and where it missed one, the general path finds it in its own answer and wraps it too', async () => {
    const { answer } = await run([...NAMED, { name: 'd', type: 'String' }]);
    expect(answer.readBack?.filter((c) => c.state).map((c) => c.name)).toEqual(['j', 'd']);
    for (const c of answer.meta) if (c.name === 'j' || c.name === 'd') expect(c.type).toMatch(/^AggregateFunction\(any, /);
  });
});
