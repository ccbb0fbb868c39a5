// Requests whose mistakes are the user's (bad setting values, answer-format settings, a negative
// LIMIT) must be answered 400 by the coordinator, naming the culprit, before any shard is invoked:
// the hostile-request corpus saw these reach ClickHouse and come back as 502 SHARD_ERROR (or, for
// LIMIT -1, as a 200 with no rows). Real planner, recording fake invoker.
import { describe, expect, it } from 'vitest';
import { runQuery } from '../../../shared/core/scatter/run-query.js';
import { planQuery } from '../../../shared/core/plan/index.js';
import { createHedgeState } from '../../../shared/core/scatter/hedge.js';
import type { PlanFn } from '../../../shared/core/scatter/run-query.js';
import { fakeInvoker, topo } from '../scatter/fakes.js';

const T = 'db.t_dist';

async function ask(body: unknown) {
  const invoker = fakeInvoker(() => ({ kind: 'ok', c: 1 }));
  const r = await runQuery(JSON.stringify(body), { topo: topo([1, 1]), invoker, planQuery: planQuery as PlanFn, hedgeState: createHedgeState(), queryId: 'q' });
  return { ...r, body: r.body as { error?: { code: string; message: string; position?: unknown } }, calls: invoker.calls.length };
}

describe('refused before any shard is invoked', () => {
  const badValues: Array<[Record<string, unknown>, string]> = [
    [{ max_threads: -1 }, 'max_threads'],
    [{ max_threads: 1e30 }, 'max_threads'],
    [{ max_threads: '1; DROP TABLE x' }, 'max_threads'],
    [{ max_memory_usage: 'lots' }, 'max_memory_usage'],
  ];
  for (const [settings, name] of badValues) {
    it(`request setting ${JSON.stringify(settings)} -> 400 BAD_REQUEST naming ${name}`, async () => {
      const r = await ask({ sql: `SELECT count() FROM ${T}`, settings });
      expect(r.status).toBe(400);
      expect(r.body.error?.code).toBe('BAD_REQUEST');
      expect(r.body.error?.message).toContain(name);
      expect(r.calls).toBe(0);
    });
  }

  it('output-shaping settings are refused with the reason, from the body and from SETTINGS', async () => {
    for (const body of [
      { sql: `SELECT count() FROM ${T}`, settings: { output_format_json_quote_64bit_integers: 0 } },
      { sql: `SELECT count() FROM ${T} SETTINGS output_format_json_quote_64bit_integers = 0` },
      { sql: `SELECT count() FROM ${T}`, settings: { default_format: 'CSV' } },
    ]) {
      const r = await ask(body);
      expect(r.status).toBe(400);
      expect(r.body.error?.code).toBe('UNSUPPORTED');
      expect(r.body.error?.message).toMatch(/format is fixed/);
      expect(r.calls).toBe(0);
    }
  });

  it('a negative LIMIT / OFFSET is UNSUPPORTED with its position, not an empty 200', async () => {
    for (const sql of [`SELECT count() FROM ${T} LIMIT -1`, `SELECT k FROM ${T} LIMIT 2 OFFSET -1`, `SELECT k FROM ${T} LIMIT -1 BY k`]) {
      const col = sql.indexOf('-1') + 1;
      const r = await ask({ sql });
      expect(r.status, sql).toBe(400);
      expect(r.body.error?.code).toBe('UNSUPPORTED');
      expect(r.body.error?.message).toMatch(/negative/);
      expect(r.body.error?.position).toEqual({ line: 1, column: col });
      expect(r.calls).toBe(0);
    }
  });

  it('good values still run (normalized, on every shard)', async () => {
    const r = await ask({ sql: `SELECT count() AS c FROM ${T}`, settings: { max_threads: '2', join_use_nulls: true } });
    expect(r.status).toBe(200);
    expect(r.calls).toBe(2);
  });
});

describe('FORMAT clause', () => {
  it('FORMAT JSON is what ch-scatter answers: accepted; any other format is UNSUPPORTED, not silently ignored', async () => {
    const ok = await ask({ sql: `SELECT count() AS c FROM ${T} FORMAT JSON` });
    expect(ok.status).toBe(200);
    for (const f of ['CSV', 'TabSeparated', 'JSONEachRow', 'Null']) {
      const r = await ask({ sql: `SELECT count() AS c FROM ${T} FORMAT ${f}` });
      expect(r.status, f).toBe(400);
      expect(r.body.error?.code).toBe('UNSUPPORTED');
      expect(r.body.error?.message).toContain(`FORMAT ${f}`);
      expect(r.calls).toBe(0);
    }
  });
});
