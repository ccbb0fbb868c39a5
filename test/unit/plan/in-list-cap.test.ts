// One IN list may hold at most query.maxInListValues values (default 20,000): more is 413
// TOO_LARGE at the list's position, wherever the list is (WHERE, SELECT, NOT IN, a subquery),
// checked before any shard is asked. Real planner and runtime, recording fake invoker.
import { describe, expect, it } from 'vitest';
import { planQuery } from '../../../shared/core/plan/index.js';
import { runQuery, type PlanFn } from '../../../shared/core/scatter/run-query.js';
import { createHedgeState } from '../../../shared/core/scatter/hedge.js';
import { ScatterError } from '../../../shared/core/errors.js';
import { fakeInvoker, topo } from '../scatter/fakes.js';

const T = 'db.t_dist';
const list = (n: number) => Array.from({ length: n }, (_, i) => i).join(', ');

async function refusal(sql: string, max: number): Promise<ScatterError> {
  try {
    await planQuery(sql, topo([1, 1], { maxInListValues: max }), {});
  } catch (e) {
    expect(e).toBeInstanceOf(ScatterError);
    return e as ScatterError;
  }
  throw new Error(`planned: ${sql}`);
}

describe('IN list cap', () => {
  it('at the cap plans; one more is TOO_LARGE (413) at the list, in every place a list can be', async () => {
    await expect(planQuery(`SELECT count() FROM ${T} WHERE k IN (${list(5)})`, topo([1, 1], { maxInListValues: 5 }), {})).resolves.toBeDefined();
    for (const sql of [
      `SELECT count() FROM ${T} WHERE k IN (${list(6)})`,
      `SELECT count() FROM ${T} WHERE k NOT IN (${list(6)})`,
      `SELECT k IN (${list(6)}) AS x FROM ${T}`,
      `SELECT count() FROM ${T} WHERE k IN [${list(6)}]`,
      `SELECT count() FROM (SELECT k FROM ${T} WHERE k IN (${list(6)}))`,
    ]) {
      const e = await refusal(sql, 5);
      expect(e.code, sql).toBe('TOO_LARGE');
      expect(e.status).toBe(413);
      expect(e.message).toMatch(/IN list of 6 values is over the limit of 5 \(query\.maxInListValues\)/);
      const at = sql.indexOf('IN ') + 3; // the list starts right after "IN "
      expect(e.position, sql).toEqual({ line: 1, column: at + 1 });
    }
  });

  it('default 100,000: a 100,001-value list under the 1 MiB body cap is 413 TOO_LARGE, no shard asked', async () => {
    const invoker = fakeInvoker(() => ({ kind: 'ok', c: 1 }));
    const sql = `SELECT count() AS c FROM ${T} WHERE k IN (${list(100_001)})`;
    const body = JSON.stringify({ sql });
    expect(Buffer.byteLength(body)).toBeLessThan(1_048_576);
    const r = await runQuery(body, { topo: topo([1, 1]), invoker, planQuery: planQuery as PlanFn, hedgeState: createHedgeState(), queryId: 'q' });
    expect(r.status).toBe(413);
    expect((r.body as { error: { code: string; message: string } }).error).toMatchObject({
      code: 'TOO_LARGE',
      position: { line: 1, column: sql.indexOf('IN (') + 4 },
    });
    expect(invoker.calls).toHaveLength(0);
  });
});
