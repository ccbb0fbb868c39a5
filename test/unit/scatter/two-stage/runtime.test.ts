// The general path's runtime with scripted shards: what stage one sends and gathers, what the
// final stage receives (in shard order, whatever the arrival order), the transfer limits, missing
// shards, the final stage's failover and its deadline.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ScatterError } from '../../../../shared/core/errors.js';
import { computeDeadline } from '../../../../shared/core/scatter/deadline.js';
import { createHedgeState } from '../../../../shared/core/scatter/hedge.js';
import { initiatorOrder } from '../../../../shared/core/scatter/two-stage/final-stage.js';
import { finalStageReserveMs, planLeaves, runGeneralQuery, type GeneralOptions } from '../../../../shared/core/scatter/two-stage/run-general.js';
import type { SelectQuery } from '../../../../shared/core/sql/ast.js';
import { parseSelect } from '../../../../shared/core/sql/parse.js';
import { topo } from '../fakes.js';
import { FINAL_OK, STATE_COLUMNS, scriptedInvoker, stateRows, tsv, uniqPlan, type Answer } from './fakes.js';

const SITES = [['a', 'b'], ['a'], ['b', 'c'], []];

function opts(timeoutMs = 2000, o: Partial<GeneralOptions> = {}): GeneralOptions {
  return {
    deadline: computeDeadline({ now: Date.now(), requestTimeoutMs: timeoutMs, configTimeoutMs: 5000, behindApiGateway: false }),
    requireComplete: false,
    hedge: { enabled: false, afterQuantile: 0.95, maxExtraPercent: 5 },
    ...o,
  };
}

function run(
  stageOne: (s: number, r: number) => Answer,
  final: (s: number, r: number) => Answer = () => ({ kind: 'raw', bytes: FINAL_OK }),
  o: { replicas?: number[]; query?: Record<string, unknown>; timeoutMs?: number; gen?: Partial<GeneralOptions>; queryId?: string } = {},
) {
  const inv = scriptedInvoker({ stageOne, final });
  const t = topo(o.replicas ?? [1, 1, 1, 1], { hedge: { enabled: false }, ...o.query });
  const p = runGeneralQuery({ topo: t, invoker: inv, hedgeState: createHedgeState(), queryId: o.queryId ?? 'q-1' }, uniqPlan(), opts(o.timeoutMs, o.gen));
  return { inv, p };
}

const ok = (s: number, delayMs = 0): Answer => ({ kind: 'raw', bytes: tsv(STATE_COLUMNS, stateRows(s, SITES[s]!)), delayMs });

async function failure(p: Promise<unknown>): Promise<ScatterError> {
  const e = await p.then(
    () => undefined,
    (x: unknown) => x,
  );
  expect(e).toBeInstanceOf(ScatterError);
  return e as ScatterError;
}

describe('general path: stage one and the final stage', () => {
  it('asks every shard for TabSeparatedWithNamesAndTypes, ships one table per leaf in shard order, answers with the final JSON and its totals', async () => {
    const { inv, p } = run((s) => ok(s, (4 - s) * 5));
    const r = await p;
    const stageOne = inv.calls.filter((c) => !c.final);
    expect(stageOne.map((c) => c.shard).sort()).toEqual([0, 1, 2, 3]);
    for (const c of stageOne) {
      expect(c.payload.format).toBe('TabSeparatedWithNamesAndTypes');
      expect(c.payload.sql).toMatch(/uniqState\(sensor\) AS _a0 FROM db\.t\b/); // renamed to the local table
      expect(c.payload.tables).toBeUndefined();
    }
    const finals = inv.calls.filter((c) => c.final);
    expect(finals).toHaveLength(1);
    const f = finals[0]!.payload;
    expect(f.sql).toBe(uniqPlan().finalSql);
    expect(f.format).toBe('JSON');
    expect(f.settings).toMatchObject({ output_format_json_quote_64bit_integers: 1 });
    expect(f.tables).toHaveLength(1);
    const table = f.tables![0]!;
    expect(table.name).toBe('_stage0');
    expect(table.columns).toEqual(STATE_COLUMNS.map(([name, type]) => ({ name, type })));
    // Bodies in shard order although shard 3 answered first and shard 0 last.
    const expected = [0, 1, 2, 3]
      .map((s) =>
        stateRows(s, SITES[s]!)
          .map((row) => `${row.join('\t')}\n`)
          .join(''),
      )
      .join('');
    expect(Buffer.from(table.tsvBase64, 'base64').toString()).toBe(expected);
    expect(r.meta).toEqual([
      { name: 'site', type: 'String' },
      { name: 'uniq(sensor)', type: 'UInt64' },
    ]);
    expect(r.data).toEqual([{ site: 'a', 'uniq(sensor)': '3' }]);
    expect(r.totals).toEqual({ site: '', 'uniq(sensor)': '9' });
    expect(r.partial).toBe(false);
    expect(r.shards).toMatchObject({ total: 4, queried: 4, succeeded: 4, missing: [] });
    expect(r.statistics.finalStage).toMatchObject({ shard: finals[0]!.shard, inputRows: 5, failedOver: [] });
    expect(r.statistics.rowsRead).toBe(400);
  });

  it('passes the final bytes through when a format is asked for (the ClickHouse HTTP interface)', async () => {
    const bytes = Buffer.from([0x01, 0xff, 0x00, 0x0a]);
    const { inv, p } = run(ok, () => ({ kind: 'raw', bytes }), { gen: { format: 'RowBinary', formatSettings: { output_format_x: 1 } } });
    const r = await p;
    expect(r.bytes?.equals(bytes)).toBe(true);
    expect(r.data).toBeUndefined();
    const f = inv.calls.find((c) => c.final)!.payload;
    expect(f.format).toBe('RowBinary');
    expect(f.settings).toEqual({ output_format_x: 1 });
  });

  it('property: the final stage receives the same bytes whatever order the shards answer in', async () => {
    let reference: string | undefined;
    await fc.assert(
      fc.asyncProperty(fc.array(fc.integer({ min: 0, max: 15 }), { minLength: 4, maxLength: 4 }), async (delays) => {
        const { inv, p } = run((s) => ok(s, delays[s]));
        await p;
        const order = inv.calls.filter((c) => !c.final).map((c) => c.shard);
        expect(order).toHaveLength(4);
        const sent = inv.calls.find((c) => c.final)!.payload.tables![0]!.tsvBase64;
        reference ??= sent;
        expect(sent).toBe(reference);
      }),
      { numRuns: 25 },
    );
  });

  it('chooses the initiator by the query id over the shards that answered, the same id always the same shard', () => {
    expect(initiatorOrder('q-1', [2, 0, 1])).toEqual(initiatorOrder('q-1', [0, 1, 2]));
    const firsts = new Set(Array.from({ length: 40 }, (_, i) => initiatorOrder(`query-${i}`, [0, 1, 2, 3])[0]));
    expect(firsts.size).toBe(4); // spread over the shards
    const o = initiatorOrder('x', [0, 1, 2, 3]);
    expect([...o].sort()).toEqual([0, 1, 2, 3]);
    expect(o.slice(o.indexOf(0))).toEqual([0, 1, 2, 3].slice(0, 4 - o.indexOf(0)));
  });

  it('refuses shards that disagree on the columns (502 SHARD_ERROR naming both)', async () => {
    const { p } = run((s) =>
      s === 2
        ? {
            kind: 'raw',
            bytes: tsv(
              [
                ['_k0', 'String'],
                ['_a0', 'AggregateFunction(uniq, UInt64)'],
              ],
              [],
            ),
          }
        : ok(s),
    );
    const e = await failure(p);
    expect(e.code).toBe('SHARD_ERROR');
    expect(e.message).toMatch(/disagree on _stage0's columns: shard 2 .*AggregateFunction\(uniq, UInt64\)/);
  });
});

describe('general path: transfer limits (413 TRANSFER_LIMIT naming the limit)', () => {
  it('maxRowsToTransfer counts every shard row of every leaf', async () => {
    const { inv, p } = run(ok, undefined, { query: { maxRowsToTransfer: 4 } });
    const e = await failure(p);
    expect(e.code).toBe('TRANSFER_LIMIT');
    expect(e.status).toBe(413);
    expect(e.message).toMatch(/more than 4 rows \(maxRowsToTransfer/);
    expect(inv.calls.some((c) => c.final)).toBe(false); // never a final stage over part of the states
  });

  it('a request may tighten maxRowsToTransfer, never raise it', async () => {
    const { p } = run(ok, undefined, { gen: { settings: { max_rows_to_transfer: 3 } } });
    expect((await failure(p)).message).toMatch(/more than 3 rows/);
    const { p: p2 } = run(ok, undefined, { query: { maxRowsToTransfer: 4 }, gen: { settings: { max_rows_to_transfer: 100 } } });
    expect((await failure(p2)).message).toMatch(/more than 4 rows/);
  });

  it('maxBytesToTransfer counts the TabSeparated bytes', async () => {
    const { p } = run(ok, undefined, { query: { maxBytesToTransfer: 20 } });
    const e = await failure(p);
    expect(e.code).toBe('TRANSFER_LIMIT');
    expect(e.message).toMatch(/more than 20 bytes \(maxBytesToTransfer/);
  });

  it("Lambda's 6 MB invoke payload bounds the final stage's request (base64 included)", async () => {
    // 4.8 MB of rows: under 6 MB as bytes, over it as base64 (x 4/3) with the reserve.
    const big = (s: number): Answer => ({
      kind: 'raw',
      bytes: Buffer.concat([tsv(STATE_COLUMNS, []), Buffer.from(`${`x${s}\t${'y'.repeat(1000)}\n`.repeat(1200)}`)]),
    });
    const { inv, p } = run(big, undefined, { query: { maxRowsToTransfer: 0 } });
    const e = await failure(p);
    expect(e.code).toBe('TRANSFER_LIMIT');
    expect(e.message).toMatch(/over Lambda's 6291456-byte invoke payload limit/);
    expect(inv.calls.some((c) => c.final)).toBe(false);
  });

  it("a shard's stage-one answer over the response limit is TRANSFER_LIMIT, not a partial answer", async () => {
    const { p } = run((s) =>
      s === 1
        ? { kind: 'failure', errKind: 'error', code: 'TOO_LARGE', message: 'shard result of 7000000 bytes exceeds the 6225920-byte response limit' }
        : ok(s),
    );
    const e = await failure(p);
    expect(e.code).toBe('TRANSFER_LIMIT');
    expect(e.message).toMatch(/shard 1/);
  });

  it('a final answer over the response limit is 413 TOO_LARGE', async () => {
    const { p } = run(ok, () => ({ kind: 'failure', errKind: 'error', code: 'TOO_LARGE', message: 'shard result of 7000000 bytes exceeds' }));
    const e = await failure(p);
    expect(e.code).toBe('TOO_LARGE');
    expect(e.message).toMatch(/final answer/);
  });
});

describe('general path: missing shards and the final stage', () => {
  it("a shard that does not answer by stage one's cut-off is missing: partial, and the final stage still runs before the deadline", async () => {
    const t0 = Date.now();
    const { inv, p } = run((s) => (s === 1 ? { kind: 'hang' } : ok(s)), undefined, { timeoutMs: 600 });
    const r = await p;
    const took = Date.now() - t0;
    expect(r.partial).toBe(true);
    expect(r.missing).toEqual([expect.objectContaining({ shard: 1, reason: 'timeout' })]);
    expect(r.shards).toMatchObject({ queried: 4, succeeded: 3, timedOut: 1 });
    expect(took).toBeLessThan(600 + 100);
    expect(took).toBeGreaterThanOrEqual(600 - finalStageReserveMs(600) - 10);
    const f = inv.calls.find((c) => c.final)!;
    expect(f.shard).not.toBe(1); // the initiator is a shard that answered
    expect(Buffer.from(f.payload.tables![0]!.tsvBase64, 'base64').toString()).not.toMatch(/\\x1/);
  });

  it('requireComplete: a missing shard is 504 INCOMPLETE_RESULT and no final stage runs', async () => {
    const { inv, p } = run((s) => (s === 3 ? { kind: 'failure', errKind: 'unavailable', message: 'down' } : ok(s)), undefined, {
      gen: { requireComplete: true },
    });
    const e = await failure(p);
    expect(e.code).toBe('INCOMPLETE_RESULT');
    expect(e.status).toBe(504);
    expect(inv.calls.some((c) => c.final)).toBe(false);
  });

  it("a ClickHouse user error on a shard is the query's: 400 QUERY_ERROR", async () => {
    const { p } = run((s) => (s === 0 ? { kind: 'failure', errKind: 'error', chCode: 47, message: 'Code: 47. Missing columns' } : ok(s)));
    const e = await failure(p);
    expect(e.code).toBe('QUERY_ERROR');
  });

  it('fails over to the next shard when the chosen one is unavailable on every replica', async () => {
    const first = initiatorOrder('q-1', [0, 1, 2, 3]);
    const { inv, p } = run(
      ok,
      (s) => (s === first[0] ? { kind: 'failure', errKind: 'unavailable', message: 'connection refused' } : { kind: 'raw', bytes: FINAL_OK }),
      {
        replicas: [2, 2, 2, 2],
      },
    );
    const r = await p;
    const finals = inv.calls.filter((c) => c.final);
    // Both replicas of the first choice, then the next shard in the order.
    expect(finals.map((c) => c.shard)).toEqual([first[0], first[0], first[1]]);
    expect(new Set(finals.slice(0, 2).map((c) => c.replica)).size).toBe(2);
    expect(r.statistics.finalStage).toMatchObject({ shard: first[1], failedOver: [expect.objectContaining({ shard: first[0], status: 'unavailable' })] });
    expect(r.data).toEqual([{ site: 'a', 'uniq(sensor)': '3' }]);
  });

  it('fails over after an invocation failure (crashed runtime) too', async () => {
    const first = initiatorOrder('q-2', [0, 1, 2, 3]);
    const { inv, p } = run(ok, (s) => (s === first[0] ? { kind: 'throw', error: new Error('socket hang up') } : { kind: 'raw', bytes: FINAL_OK }), {
      queryId: 'q-2',
    });
    await p;
    expect(inv.calls.filter((c) => c.final).map((c) => c.shard)).toEqual([first[0], first[1]]);
  });

  it('does not fail over on a ClickHouse user error in the final stage: 400 at once', async () => {
    const { inv, p } = run(ok, () => ({ kind: 'failure', errKind: 'error', chCode: 43, message: 'Code: 43. Illegal type of argument' }), {
      replicas: [2, 2, 2, 2],
    });
    const e = await failure(p);
    expect(e.code).toBe('QUERY_ERROR');
    expect(e.message).toMatch(/in the final stage \(shard \d\)/);
    expect(inv.calls.filter((c) => c.final)).toHaveLength(1);
  });

  it("the same ClickHouse error from every shard tried is the query's (400), even for a code not known as a user error", async () => {
    const { inv, p } = run(ok, () => ({ kind: 'failure', errKind: 'error', chCode: 475, message: 'Code: 475. Incompatible types of WITH FILL expression' }));
    const e = await failure(p);
    expect(e.code).toBe('QUERY_ERROR');
    expect(e.message).toMatch(/final stage \(every shard tried\).*475/);
    expect(inv.calls.filter((c) => c.final)).toHaveLength(4); // tried everywhere first: it could have been one bad server
  });

  it('a final stage still running at the deadline is 504 TIMEOUT at the deadline, not later', async () => {
    const t0 = Date.now();
    const { p } = run(ok, () => ({ kind: 'hang' }), { timeoutMs: 400 });
    const e = await failure(p);
    const took = Date.now() - t0;
    expect(e.code).toBe('TIMEOUT');
    expect(e.message).toMatch(/final stage did not finish before the deadline/);
    expect(took).toBeGreaterThanOrEqual(390);
    expect(took).toBeLessThan(400 + 100);
  });

  it('no shard answering a leaf: 504 TIMEOUT (nothing to merge), not an empty answer', async () => {
    const { inv, p } = run(() => ({ kind: 'hang' }), undefined, { timeoutMs: 300 });
    const e = await failure(p);
    expect(e.code).toBe('TIMEOUT');
    expect(inv.calls.some((c) => c.final)).toBe(false);
  });

  it('the final stage reserve: 10 % of the budget, at least 100 ms, at most 1 s, never more than half', () => {
    expect(finalStageReserveMs(5000)).toBe(500);
    expect(finalStageReserveMs(30_000)).toBe(1000);
    expect(finalStageReserveMs(600)).toBe(100);
    expect(finalStageReserveMs(120)).toBe(60);
  });
});

describe('general path: leaf planning', () => {
  it("a leaf the planner marks 'local' reads each shard's own table in its IN, whatever the request's mode", async () => {
    const t = topo([1, 1]);
    const leaf = {
      name: '_stage0',
      query: parseSelect('SELECT count() AS _c0 FROM db.t_dist WHERE k IN (SELECT k FROM db.t_dist WHERE v > 1)') as SelectQuery,
    };
    const [local] = await planLeaves({ leaves: [{ ...leaf, distributedProductMode: 'local' }], finalSql: 'SELECT 1', notes: [] }, t, {
      settings: { distributed_product_mode: 'deny' },
    });
    expect(local!.plan.shards.map((s) => s.sql)).toEqual([expect.stringMatching(/IN \(SELECT k FROM db\.t AS t_dist WHERE/), expect.any(String)]);
    // The same leaf without the mark, under 'deny', is refused as ClickHouse would refuse it.
    await expect(planLeaves({ leaves: [leaf], finalSql: 'SELECT 1', notes: [] }, t, { settings: { distributed_product_mode: 'deny' } })).rejects.toThrow(
      /distributed_product_mode/,
    );
  });
});
