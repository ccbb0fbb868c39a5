// The oracle corpus, its data and its harness, checked on chdb today (the general path plugs in
// through oracleAgainstQueryApi in local-stack.ts):
// - the corpus covers what it claims (size, categories, 40+ aggregate functions and combinators by
//   ClickHouse's own list of them);
// - the loader put every row where the router places it, and the sensor table's shard 3 is empty;
// - every query runs on the single node, and answers the same over a reordered copy of the rows
//   (reversed, in seven parts): the exact marks hold for any row order;
// - the comparator catches a mutated row, a missing row, a changed type, a lost Decimal digit, ...
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildSlots } from '../../shared/core/sharding/index.js';
import { type ChdbOracle, reorderedName, startChdbOracle } from '../support/oracle-cluster.js';
import { type Answer, compareAnswers } from './compare.js';
import { CORPUS } from './corpus.js';
import type { OracleQuery } from './corpus-types.js';
import { describeFailures, type Runner, runOracle, singleNodeRunner } from './harness.js';
import { EMPTY_SENSOR_SHARD, EVENTS, SENSORS, TABLES, USERS } from './schema.js';

let o: ChdbOracle;
let reference: Runner;
let reordered: Runner;
const answers = new Map<string, Answer>();

beforeAll(async () => {
  o = await startChdbOracle({ reorderedCopy: true });
  reference = await singleNodeRunner(o.single);
  reordered = (sql) => singleNodeRunner(o.single, reorderedName).then((run) => run(sql));
}, 120_000);
afterAll(async () => {
  await o?.stop();
});

const byId = (id: string) => {
  const c = CORPUS.find((x) => x.id === id);
  if (!c) throw new Error(`no corpus query ${id}`);
  return c;
};

describe('the corpus', () => {
  it('has at least 170 queries with unique ids, over all three tables, in every category', () => {
    expect(CORPUS.length).toBeGreaterThanOrEqual(170);
    expect(new Set(CORPUS.map((c) => c.id)).size).toBe(CORPUS.length);
    for (const t of TABLES) expect(CORPUS.filter((c) => c.sql.includes(t.dist)).length, t.dist).toBeGreaterThanOrEqual(20);
    const perCategory = new Map<string, number>();
    for (const c of CORPUS) perCategory.set(c.category, (perCategory.get(c.category) ?? 0) + 1);
    for (const cat of ['window', 'subquery', 'with', 'union', 'rollup-totals', 'in', 'nulls', 'ties', 'empty', 'empty-shard', 'syntax'])
      expect(perCategory.get(cat) ?? 0, cat).toBeGreaterThanOrEqual(5);
  });

  it('flags a LIMIT only under ORDER BY, and states why wherever floats get a tolerance', () => {
    const wrong: string[] = [];
    for (const c of CORPUS) {
      if (c.ordered && !/ORDER BY/.test(c.sql)) wrong.push(`${c.id}: ordered without ORDER BY`);
      // A top-level LIMIT (not LIMIT BY) over unordered rows would pick arbitrary rows: not a function of the data.
      const tail = /\)([^()]*)$/.exec(c.sql)?.[1] ?? c.sql;
      if (/\bLIMIT\s+\d+(\s*,\s*\d+)?(\s+OFFSET\s+\d+)?\s*$/.test(tail) && !c.ordered) wrong.push(`${c.id}: LIMIT without a total order`);
      if (c.tolerance && c.tolerance.why.length < 20) wrong.push(`${c.id}: a tolerance without a reason`);
    }
    expect(wrong).toEqual([]);
  });

  it('calls at least 40 aggregate functions and combinators, by ClickHouse’s own list', async () => {
    const fns = (await o.single.json('SELECT name FROM system.functions WHERE is_aggregate')).data.map((r) => String(r.name));
    const combinators = (await o.single.json('SELECT name FROM system.aggregate_function_combinators')).data.map((r) => String(r.name));
    const aggregates = new Set(fns);
    const called = new Set(CORPUS.flatMap((c) => [...c.sql.matchAll(/\b([A-Za-z_][A-Za-z0-9_]*)\s*\(/g)].map((m) => m[1]!)));
    const plain = [...called].filter((n) => aggregates.has(n));
    const combined = [...called].filter((n) => !aggregates.has(n) && combinators.some((k) => n.endsWith(k) && aggregates.has(n.slice(0, -k.length))));
    expect(plain.length + combined.length, `plain: ${plain.join(' ')}\ncombined: ${combined.join(' ')}`).toBeGreaterThanOrEqual(40);
    expect(new Set(combinators.filter((k) => combined.some((n) => n.endsWith(k)))).size).toBeGreaterThanOrEqual(8);
  });
});

describe('the loader', () => {
  it('placed every row on the shard the router picks, as ClickHouse computes it, and left shard 3 of the sensor table empty', async () => {
    const slots = buildSlots(o.topo.shards);
    for (const t of TABLES) {
      const per = o.perShard.get(t)!.map((rows) => rows.length);
      expect(per.reduce((a, b) => a + b, 0)).toBe(o.data.rows.get(t)!.length);
      const hash = `xxHash64(${t.key.column}) % ${slots.length}`;
      for (const [i, shard] of o.shards.entries()) {
        const mine = slots.flatMap((s, k) => (s === i ? [k] : []));
        const r = await shard.query(`SELECT count() AS n, countIf(${hash} NOT IN (${mine.join(', ')})) AS misplaced FROM ${t.local}`);
        expect(r.rows[0], `${t.dist} shard ${i}`).toEqual({ n: String(per[i]), misplaced: '0' });
      }
      const all = await o.single.json(`SELECT count() AS n FROM ${t.local}`);
      expect(all.data[0]!.n).toBe(String(o.data.rows.get(t)!.length));
    }
    expect(o.perShard.get(SENSORS)![EMPTY_SENSOR_SHARD]!.length).toBe(0);
    for (const t of [EVENTS, USERS]) expect(o.perShard.get(t)!.every((rows) => rows.length > 0)).toBe(true);
  });
});

describe('every query on the single node', () => {
  it('runs, and answers the same over the rows reversed and in seven parts (the exact marks hold for any row order)', async () => {
    const seen: Runner = async (sql) => {
      const a = await reference(sql);
      answers.set(sql, a);
      return a;
    };
    const report = await runOracle(CORPUS, reordered, seen, { concurrency: 2 });
    expect(report.outcomes.length).toBe(CORPUS.length);
    expect(describeFailures(report)).toBe('');
  });
});

describe('the comparator', () => {
  const answerOf = (id: string) => {
    const a = answers.get(byId(id).sql);
    if (!a) throw new Error(`no answer recorded for ${id}`);
    return a;
  };
  const clone = (a: Answer): Answer => structuredClone(a);
  const check = (c: OracleQuery, got: Answer, want: Answer) => compareAnswers(got, want, { ordered: c.ordered === true, floatTolerance: c.tolerance?.rel });

  it('finds a mutated row, a missing row, an extra row and a changed type in every query that has rows', () => {
    let checked = 0;
    for (const c of CORPUS) {
      const want = answerOf(c.id);
      if (want.rows.length === 0) continue;
      checked++;
      const missing = clone(want);
      missing.rows.pop();
      expect(check(c, missing, want) ?? 'none', c.id).toMatch(/row count/);
      const extra = clone(want);
      extra.rows.push(extra.rows[0]!);
      expect(check(c, extra, want) ?? 'none', c.id).toMatch(/row count/);
      const retyped = clone(want);
      const col = retyped.meta[retyped.meta.length - 1]!;
      col.type = col.type === 'String' ? 'LowCardinality(String)' : 'String';
      expect(check(c, retyped, want) ?? 'none', c.id).toMatch(/columns differ/);
      const mutated = clone(want);
      const last = mutated.rows.length - 1;
      const name = mutated.meta[0]!.name;
      mutated.rows[last]![name] = mutate(mutated.rows[last]![name]);
      expect(check(c, mutated, want) ?? 'no difference found', `${c.id}: ${JSON.stringify(want.rows[last])}`).toMatch(/differ/);
      expect(check(c, clone(want), want), c.id).toBeUndefined();
    }
    expect(checked).toBeGreaterThan(150);
  });

  it('reads values through their types: spellings of one value are equal, lost digits are not', () => {
    const dec = (v: unknown): Answer => ({ meta: [{ name: 'a', type: 'Decimal(38, 10)' }], rows: [{ a: v }] });
    const exact = { ordered: true };
    expect(compareAnswers(dec('1.5000000000'), dec('1.5'), exact)).toBeUndefined();
    expect(compareAnswers(dec(1.5), dec('1.5'), exact)).toBeUndefined();
    expect(compareAnswers(dec(Number('23010250729557076854.3190283095')), dec('23010250729557076854.3190283095'), exact)).toMatch(/differs/);
    const f = (v: unknown, type = 'Float64'): Answer => ({ meta: [{ name: 'x', type }], rows: [{ x: v }] });
    expect(compareAnswers(f('nan'), f(null), exact)).toMatch(/differs/);
    expect(compareAnswers(f('-nan'), f('nan'), exact)).toBeUndefined();
    expect(compareAnswers(f(-0), f(0), exact)).toMatch(/differs/);
    expect(compareAnswers(f(0.1 + 0.2), f(0.3), exact)).toMatch(/differs/);
    expect(compareAnswers(f(0.1 + 0.2), f(0.3), { ordered: true, floatTolerance: 1e-9 })).toBeUndefined();
    expect(compareAnswers(f('inf'), f(Number.MAX_VALUE), { ordered: true, floatTolerance: 1e-9 })).toMatch(/differs/);
    const i64 = (v: unknown): Answer => ({ meta: [{ name: 'n', type: 'Int64' }], rows: [{ n: v }] });
    expect(compareAnswers(i64(42), i64('42'), exact)).toBeUndefined();
    expect(compareAnswers(i64(Number('9007199254740993')), i64('9007199254740993'), exact)).toMatch(/differs/);
    expect(compareAnswers({ ...i64('1'), partial: true }, i64('1'), exact)).toMatch(/partial/);
  });

  it('holds ordered queries to their order, and compares the others as multisets', () => {
    const c = byId('order-limit/top-pages');
    const want = answerOf(c.id);
    const swapped = clone(want);
    swapped.rows.reverse();
    expect(check(c, swapped, want)).toMatch(/differs/);
    const u = byId('aggregate/median');
    const wantU = answerOf(u.id);
    const shuffled = clone(wantU);
    shuffled.rows.reverse();
    expect(check(u, shuffled, wantU)).toBeUndefined();
  });

  it('compares the totals of WITH TOTALS', () => {
    const c = byId('rollup-totals/totals');
    const want = answerOf(c.id);
    expect(want.totals).toBeDefined();
    const none = clone(want);
    delete none.totals;
    expect(check(c, none, want)).toMatch(/totals/);
    const changed = clone(want);
    changed.totals!.c = String(Number(changed.totals!.c) + 1);
    expect(check(c, changed, want)).toMatch(/totals differ/);
    // chdb's out-of-order output for an empty result with totals was put back together.
    expect(answerOf('empty/totals-nothing').totals).toEqual({ event: '', c: '0' });
  });

  it('lets a tolerance absorb float summation order only where one is stated', () => {
    const nudge = (a: Answer) => {
      const b = clone(a);
      for (const row of b.rows) for (const [k, v] of Object.entries(row)) if (typeof v === 'number' && !Number.isInteger(v)) row[k] = v * (1 + 1e-12);
      return b;
    };
    const tolerant = byId('aggregate/stddev-grouped');
    expect(check(tolerant, nudge(answerOf(tolerant.id)), answerOf(tolerant.id))).toBeUndefined();
    const exact = byId('aggregate/avg');
    expect(check(exact, nudge(answerOf(exact.id)), answerOf(exact.id))).toMatch(/differs/);
  });
});

/** A different value of the same JSON shape. */
function mutate(v: unknown): unknown {
  if (v === null) return 0;
  if (typeof v === 'number') return v + 1;
  if (typeof v === 'boolean') return !v;
  if (Array.isArray(v)) return [...v, v[0] ?? 1];
  if (typeof v === 'object') {
    const [k, x] = Object.entries(v as object)[0]!;
    return { ...(v as object), [k]: mutate(x) };
  }
  const s = String(v);
  if (/^-?\d+$/.test(s)) return String(BigInt(s) + 1n);
  return `${s}x`;
}
