// planQuery end to end without engines: refusals with positions, GLOBAL materialization and
// transfer limits, forced skipping, the print-once template against per-shard printing, and
// that planning never mutates the caller's tree.
import { describe, expect, it } from 'vitest';
import { planQuery, planQueryWith, explainPlan, renderExplainText } from '../../../shared/core/plan/index.js';
import type { PlanOptions, SubqueryRunner } from '../../../shared/core/plan/types.js';
import { parseSelect } from '../../../shared/core/sql/parse.js';
import { printSelect } from '../../../shared/core/sql/print.js';
import { ScatterError } from '../../../shared/core/errors.js';
import { CORPUS } from './corpus.js';
import { passThroughSplit, testTopology } from './fixtures.js';

const topo = testTopology();

/** A runner that answers from a fixed table keyed by the subquery's first selected column. */
function fakeRunner(rowsPerColumn = 12): SubqueryRunner & { calls: number } {
  const f = (async (stmt) => {
    f.calls++;
    const q = stmt.kind === 'select' ? stmt : stmt.selects[0]!;
    const first = q.columns[0]!;
    const col = first.kind === 'column' ? first.parts[first.parts.length - 1]! : 'x';
    if (col === 'sensor') return { meta: [{ name: 'sensor', type: 'String' }], rows: Array.from({ length: rowsPerColumn }, (_, i) => ({ sensor: `s-${i}` })) };
    return { meta: [{ name: col, type: 'UInt64' }], rows: Array.from({ length: rowsPerColumn }, (_, i) => ({ [col]: String(i) })) };
  }) as SubqueryRunner & { calls: number };
  f.calls = 0;
  return f;
}

const plan = (sql: string, opts: PlanOptions = {}) => planQueryWith(sql, topo, opts, passThroughSplit);

async function refusal(sql: string, opts: PlanOptions = {}): Promise<ScatterError> {
  try {
    await plan(sql, opts);
  } catch (e) {
    expect(e).toBeInstanceOf(ScatterError);
    return e as ScatterError;
  }
  throw new Error(`expected a refusal: ${sql}`);
}

describe('refusals', () => {
  const cases: [string, string, RegExp, PlanOptions?][] = [
    ['SELECT sensor FROM analytics.events_dist UNION ALL SELECT sensor FROM analytics.events_dist', 'UNSUPPORTED', /UNION/],
    ['SELECT number FROM numbers(10)', 'UNSUPPORTED', /table function numbers/],
    ["SELECT sensor FROM analytics.events_dist AS e JOIN remote('h', system.one) AS r ON 1 = 1", 'UNSUPPORTED', /table function remote/],
    ['SELECT sensor FROM analytics.nope', 'UNKNOWN_TABLE', /analytics\.nope/],
    ['SELECT sensor FROM events_dist', 'UNKNOWN_TABLE', /default\.events_dist/],
    ['SELECT sensor FROM analytics.events', 'UNKNOWN_TABLE', /shard-local table behind analytics\.events_dist/],
    // One backquoted name holding a dot is one table of the current database, as ClickHouse reads it (60), never db.table.
    [
      'SELECT sensor FROM `analytics.events_dist`',
      'UNKNOWN_TABLE',
      /unknown table default\.`analytics\.events_dist` \(a quoted name's dot is part of the name/,
    ],
    ['SELECT sensor FROM "analytics.events_dist" AS e', 'UNKNOWN_TABLE', /unknown table default\.`analytics\.events_dist`/],
    ['SELECT sensor FROM analytics.events_dist WHERE sensor GLOBAL IN `analytics.events_dist`', 'UNKNOWN_TABLE', /`analytics\.events_dist`/],
    ['SELECT sensor FROM analytics.events_dist AS e GLOBAL JOIN `analytics.users_dist` AS u USING user_id', 'UNKNOWN_TABLE', /`analytics\.users_dist`/],
    ['SELECT sensor, count() FROM analytics.events_dist GROUP BY sensor WITH ROLLUP', 'UNSUPPORTED', /ROLLUP/],
    ['SELECT sensor FROM analytics.events_dist ORDER BY sensor WITH FILL', 'UNSUPPORTED', /WITH FILL/],
    ['SELECT DISTINCT ON (sensor) sensor FROM analytics.events_dist', 'UNSUPPORTED', /DISTINCT ON/],
    ['SELECT sensor FROM analytics.events_dist WHERE sensor = {s:String}', 'BAD_REQUEST', /Substitution `s` is not set/],
    [
      'SELECT sensor FROM analytics.events_dist WHERE user_id IN (SELECT user_id FROM analytics.users_dist)',
      'UNSUPPORTED',
      /distributed_product_mode = 'deny'/,
    ],
    [
      'SELECT sensor FROM analytics.events_dist AS e JOIN analytics.users_dist AS u ON e.user_id = u.user_id',
      'UNSUPPORTED',
      /distributed_product_mode = 'deny'/,
    ],
    ['SELECT sensor FROM (SELECT sensor FROM analytics.events_dist)', 'UNSUPPORTED', /subquery in FROM/],
    ['SELECT 1', 'UNSUPPORTED', /without FROM/],
    ['WITH t AS (SELECT 1) SELECT sensor FROM analytics.events_dist', 'UNSUPPORTED', /common table expression/],
    ['SELECT sensor FROM analytics.events_dist WHERE sensor = 1', 'TYPE_MISMATCH', /sensor \(String\)/],
    ["SELECT k FROM nums_dist WHERE k IN (0, '255foo')", 'TYPE_MISMATCH', /255foo/],
    ['SELECT sensor FROM analytics.events_dist SETTINGS readonly = 0', 'UNSUPPORTED', /readonly/],
    ['SELECT sensor FROM analytics.events_dist', 'UNABLE_TO_SKIP_SHARDS', /no condition on the sharding key/, { forceSkipUnusedShards: true }],
    [
      "SELECT sensor FROM analytics.events_dist WHERE sensor NOT IN ('a')",
      'UNABLE_TO_SKIP_SHARDS',
      /sharding key/,
      { settings: { force_optimize_skip_unused_shards: 1 } },
    ],
    [
      "SELECT sensor FROM analytics.events_dist WHERE sensor IN ('a', NULL) SETTINGS force_optimize_skip_unused_shards = 1",
      'UNABLE_TO_SKIP_SHARDS',
      /sharding key/,
    ],
    [
      "SELECT lower(sensor) AS sensor FROM analytics.events_dist WHERE sensor = 'a'",
      'UNABLE_TO_SKIP_SHARDS',
      /alias named sensor/,
      { forceSkipUnusedShards: true },
    ],
  ];
  it.each(cases)('%s -> %s', async (sql, code, message, opts) => {
    const e = await refusal(sql, opts);
    expect(e.code).toBe(code);
    expect(e.message).toMatch(message);
  });

  it('errors carry the position of the construct', async () => {
    expect((await refusal('SELECT sensor\nFROM numbers(10)')).position).toEqual({ line: 2, column: 6 });
    expect((await refusal('SELECT sensor FROM analytics.events_dist\nWHERE sensor = 7')).position).toEqual({ line: 2, column: 16 });
    expect((await refusal('SELECT x FROM analytics.missing')).position).toEqual({ line: 1, column: 15 });
    expect((await refusal('SELECT x FROM `analytics.events_dist`')).position).toEqual({ line: 1, column: 15 });
  });

  it('a database and a table each quoted are the configured table', async () => {
    const written = await plan('SELECT sensor FROM analytics.events_dist');
    expect((await plan('SELECT sensor FROM `analytics`.`events_dist`')).shards.map((x) => x.sql)).toEqual(written.shards.map((x) => x.sql));
  });

  it('forced skipping succeeds when the filter narrows', async () => {
    const p = await plan("SELECT sensor FROM analytics.events_dist WHERE sensor = 's-1'", { forceSkipUnusedShards: true });
    expect(p.shards.filter((s) => !s.skipped)).toHaveLength(1);
  });
});

describe('GLOBAL IN / GLOBAL JOIN', () => {
  it('identical subqueries run once and share one _data_ name', async () => {
    const runner = fakeRunner();
    const p = await plan(
      'SELECT sensor FROM analytics.events_dist WHERE user_id GLOBAL IN (SELECT user_id FROM analytics.users_dist) OR value GLOBAL IN (SELECT user_id FROM analytics.users_dist)',
      { runSubquery: runner },
    );
    expect(runner.calls).toBe(1);
    expect(p.external).toHaveLength(1);
    const name = p.external[0]!.name;
    expect(name).toMatch(/^_data_\d+$/);
    const sql = p.shards[0]!.sql!;
    expect(sql.split(name)).toHaveLength(3);
    expect(sql).not.toMatch(/GLOBAL|SELECT user_id/);
    expect(p.shards.every((s) => s.external.includes(name))).toBe(true);
  });

  it('a shipped table whose columns travel otherwise is read back by the shards: states as values, two columns of one name as the first', async () => {
    const tsv = { body: Buffer.from('x\n'), rows: 1 };
    const runner: SubqueryRunner = async (stmt) => {
      const join = printSelect(stmt).includes('status');
      return join
        ? {
            meta: [
              { name: 'user_id', type: 'UInt64' },
              { name: 'status', type: 'AggregateFunction(any, Dynamic)' },
              { name: '_n2___', type: 'AggregateFunction(any, Dynamic)' },
            ],
            rows: [],
            tsv,
            readBack: [
              { from: 'user_id', name: 'user_id' },
              { from: 'status', name: 'status', state: true },
              { from: 'status', name: 'status', state: true },
            ],
          }
        : { meta: [{ name: 'v', type: 'AggregateFunction(any, Variant(String, UInt32))' }], rows: [], tsv, readBack: [{ from: 'v', name: 'v', state: true }] };
    };
    const p = await plan(
      'SELECT sensor FROM analytics.events_dist AS e GLOBAL JOIN (SELECT user_id, status, status FROM analytics.users_dist) AS u USING (user_id) ' +
        'WHERE value GLOBAL IN (SELECT v FROM analytics.users_dist)',
      { runSubquery: runner },
    );
    const [set, join] = [p.external.find((t) => t.columns[0]!.name === 'c1')!, p.external.find((t) => t.columns[0]!.name === 'user_id')!];
    expect(set.data?.format).toBe('TabSeparated');
    expect(join.columns.map((c) => c.name)).toEqual(['user_id', 'status', '_n2___']);
    const sql = p.shards[0]!.sql!;
    expect(sql).toContain(
      `JOIN (SELECT user_id, finalizeAggregation(status) AS status, finalizeAggregation(status) AS status FROM ${join.name}) AS u USING (user_id)`,
    );
    expect(sql).toContain(`value IN (SELECT finalizeAggregation(c1) AS c1 FROM ${set.name})`);
  });

  it('a GLOBAL IN right side runs as SELECT DISTINCT (a set); GLOBAL JOIN and LIMITed subqueries run as written, bounded by maxRowsToTransfer + 1', async () => {
    const seen: string[] = [];
    const runner: SubqueryRunner = async (stmt) => {
      seen.push(printSelect(stmt));
      return { meta: [{ name: 'user_id', type: 'UInt64' }], rows: [{ user_id: '1' }] };
    };
    await plan(
      'SELECT sensor FROM analytics.events_dist AS e GLOBAL JOIN (SELECT user_id FROM analytics.users_dist) AS u USING (user_id) ' +
        'WHERE user_id GLOBAL IN (SELECT user_id FROM analytics.users_dist) AND user_id GLOBAL NOT IN (SELECT user_id FROM analytics.users_dist LIMIT 3)',
      { runSubquery: runner },
    );
    expect(seen.sort()).toEqual([
      'SELECT DISTINCT user_id FROM analytics.users_dist LIMIT 1001',
      'SELECT user_id FROM analytics.users_dist LIMIT 1001',
      'SELECT user_id FROM analytics.users_dist LIMIT 3',
    ]);
  });

  it('a scalar subquery over a distributed table runs once, bounded to two rows, and ships by position; a local IN subquery stays', async () => {
    const seen: string[] = [];
    const runner: SubqueryRunner = async (stmt) => {
      seen.push(printSelect(stmt));
      return { meta: [{ name: 'max(value)', type: 'Float64' }], rows: [{ 'max(value)': 2.5 }] };
    };
    const p = await plan(
      'SELECT sensor, (SELECT max(value) FROM analytics.events_dist) AS m FROM analytics.events_dist WHERE value < (SELECT max(value) FROM analytics.events_dist)',
      { runSubquery: runner },
    );
    expect(seen).toEqual(['SELECT max(value) FROM analytics.events_dist LIMIT 2']);
    expect(p.external).toHaveLength(1);
    const t = p.external[0]!;
    expect(t.columns).toEqual([{ name: 'c1', type: 'Float64' }]);
    expect(t.rows).toEqual([{ c1: 2.5 }]);
    expect(p.shards[0]!.sql).toBe(`SELECT sensor, (SELECT * FROM ${t.name}) AS m FROM analytics.events WHERE value < (SELECT * FROM ${t.name})`);
  });

  it('max_rows_to_transfer with throw: TRANSFER_LIMIT, HTTP 413', async () => {
    const runner = fakeRunner(20);
    const e = await refusal('SELECT sensor FROM analytics.events_dist WHERE user_id GLOBAL IN (SELECT user_id FROM analytics.users_dist)', {
      runSubquery: runner,
      settings: { max_rows_to_transfer: 10 },
    });
    expect(e.code).toBe('TRANSFER_LIMIT');
    expect(e.status).toBe(413);
  });

  it('max_bytes_to_transfer with break: truncated rows and a recorded reason', async () => {
    const runner = fakeRunner(20);
    const p = await plan('SELECT sensor FROM analytics.events_dist WHERE user_id GLOBAL IN (SELECT user_id FROM analytics.users_dist)', {
      runSubquery: runner,
      settings: { max_bytes_to_transfer: 60, transfer_overflow_mode: 'break' },
    });
    const rows = p.external[0]!.rows;
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.length).toBeLessThan(20);
    expect(Buffer.byteLength(JSON.stringify(rows))).toBeLessThanOrEqual(60);
    expect(p.truncated).toHaveLength(1);
    expect(p.truncated[0]).toMatch(/max_bytes_to_transfer/);
    expect(explainPlan(p).truncated).toEqual(p.truncated);
  });

  it('the configured limit applies without any setting (topology maxRowsToTransfer)', async () => {
    const small = testTopology({ maxRowsToTransfer: 5, transferOverflowMode: 'break' });
    const p = await planQueryWith(
      'SELECT sensor FROM analytics.events_dist WHERE user_id GLOBAL IN (SELECT user_id FROM analytics.users_dist)',
      small,
      { runSubquery: fakeRunner(8) },
      passThroughSplit,
    );
    expect(p.external[0]!.rows).toHaveLength(5);
    expect(p.truncated[0]).toMatch(/8 rows exceed max_rows_to_transfer = 5/);
  });

  it('a shipped set on the key is pruned per shard; shards with no value are skipped', async () => {
    const p = await plan('SELECT sensor FROM analytics.events_dist WHERE sensor GLOBAL IN (SELECT sensor FROM analytics.events_dist WHERE value > 1)', {
      runSubquery: fakeRunner(12),
    });
    const shipped = p.external[0]!;
    let total = 0;
    for (const s of p.shards) {
      if (s.skipped) continue;
      const o = s.externalOverrides?.find((t) => t.name === shipped.name);
      total += (o ?? shipped).rows.length;
    }
    expect(total).toBe(12); // every shipped row goes to exactly one shard
  });

  it('without a runner the plan names the data but does not run it (explain)', async () => {
    const p = await plan('SELECT sensor FROM analytics.events_dist WHERE user_id GLOBAL IN (SELECT user_id FROM analytics.users_dist)');
    expect(p.unmaterialized).toEqual([p.external[0]!.name]);
    const ex = explainPlan(p);
    expect(ex.external).toEqual([{ name: p.external[0]!.name, rows: 0, materialized: false }]);
    expect(renderExplainText(ex)).toMatch(/not run/);
  });
});

describe('per-shard texts', () => {
  it('print-once template equals printing each shard tree, for the whole corpus', async () => {
    for (const entry of CORPUS) {
      const opts = { ...entry.opts, runSubquery: fakeRunner() };
      const a = await planQueryWith(entry.sql, topo, opts, passThroughSplit);
      const b = await planQueryWith(entry.sql, topo, opts, passThroughSplit, { printEachShard: true });
      expect(
        a.shards.map((s) => s.sql ?? s.reason),
        entry.sql,
      ).toEqual(b.shards.map((s) => s.sql ?? s.reason));
    }
  });

  it("never mutates the caller's statement", async () => {
    for (const entry of CORPUS) {
      const stmt = parseSelect(entry.sql);
      const before = JSON.stringify(stmt);
      const p = await planQueryWith(stmt, topo, { ...entry.opts, runSubquery: fakeRunner() }, passThroughSplit);
      expect(JSON.stringify(stmt), entry.sql).toBe(before);
      expect(p.statement).toBe(stmt);
    }
  });

  it('an alias named like the key disables skipping and pruning', async () => {
    const p = await plan("SELECT lower(sensor) AS sensor FROM analytics.events_dist WHERE sensor IN ('s-1', 's-2')");
    expect(p.shards.every((s) => !s.skipped && s.sql!.includes("IN ('s-1', 's-2')"))).toBe(true);
  });

  it('an aliased IN whose values live on several shards keeps its whole set on each (the same IN without the alias is pruned)', async () => {
    const values = "('s-4', 's-5', 's-6')";
    const bare = await plan(`SELECT sensor, value FROM analytics.events_dist WHERE sensor IN ${values} AND value >= 0`);
    const bareQueried = bare.shards.filter((s) => !s.skipped);
    // The premise: these values span more than one shard, so pruning would change some shard's set.
    expect(bareQueried.length).toBeGreaterThan(1);
    expect(bareQueried.some((s) => !s.sql!.includes(`IN ${values}`))).toBe(true);

    const aliased = await plan(`SELECT sensor, value, cond FROM analytics.events_dist WHERE (sensor IN ${values} AS cond) AND value >= 0`);
    const aliasedQueried = aliased.shards.filter((s) => !s.skipped);
    // Skipping still applies (the same shards are asked), pruning does not.
    expect(aliasedQueried.map((s) => s.shard)).toEqual(bareQueried.map((s) => s.shard));
    for (const s of aliasedQueried) expect(s.sql).toContain(`(sensor IN ${values} AS cond)`);
  });

  it('settings are forwarded, never printed into the shard text', async () => {
    const p = await plan("SELECT sensor FROM analytics.events_dist WHERE sensor = 's-1' SETTINGS max_threads = 3, join_use_nulls = 1", {
      settings: { max_memory_usage: 1000000 },
    });
    expect(p.settings).toEqual({ max_threads: 3, join_use_nulls: 1, max_memory_usage: 1000000 });
    for (const s of p.shards) if (!s.skipped) expect(s.sql).not.toMatch(/SETTINGS|FORMAT/);
  });
});

describe('planQuery with the aggregate split', () => {
  it('renames and prunes the split shard query and returns its merger', async () => {
    const p = await planQuery(
      "SELECT sensor, count() AS c, avg(value) AS v FROM analytics.events_dist WHERE sensor IN ('s-1', 's-2', 's-6') GROUP BY sensor",
      topo,
    );
    const queried = p.shards.filter((s) => !s.skipped);
    expect(queried.length).toBeGreaterThan(0);
    for (const s of queried) {
      expect(s.sql).toMatch(/FROM analytics\.events\b/);
      expect(s.sql).not.toMatch(/events_dist/);
    }
    // The pruned sets partition the three values.
    const seen = queried.flatMap((s) => [...s.sql!.matchAll(/'s-\d'/g)].map((m) => m[0]));
    expect(new Set(seen)).toEqual(new Set(["'s-1'", "'s-2'", "'s-6'"]));
    expect(typeof p.createMerger().add).toBe('function');
    expect(p.mergeDescription.length).toBeGreaterThan(0);
  });
});

describe('explain', () => {
  it('has the documented explain shape and renders as text', async () => {
    const p = await plan("SELECT sensor FROM analytics.events_dist WHERE sensor IN ('s-1')");
    const ex = explainPlan(p);
    expect(ex.shards).toHaveLength(4);
    const skipped = ex.shards.filter((s) => s.skipped);
    expect(skipped.length).toBe(3);
    expect(skipped[0]!.reason).toBe("no value of sensor IN ('s-1') lives on this shard");
    expect(ex.shards.find((s) => !s.skipped)!.sql).toBe("SELECT sensor FROM analytics.events WHERE sensor IN ('s-1')");
    expect(ex.merge).toBe('pass-through (test)');
    const text = renderExplainText(ex);
    expect(text).toContain('shards: 4 (1 queried, 3 skipped)');
    expect(text).toContain("SELECT sensor FROM analytics.events WHERE sensor IN ('s-1')");
  });
});

// The intent of ClickHouse's 01756_optimize_skip_unused_shards_rewrite_in, on a UInt8 identity key
// (like its dist_01756_column) with force_optimize_skip_unused_shards.
describe('ClickHouse 01756 intent (forced skipping)', () => {
  const forced = { forceSkipUnusedShards: true };
  const queried = async (sql: string) => (await plan(sql, forced)).shards.filter((s) => !s.skipped).map((s) => s.sql);

  it('non-constant operands and NOT IN cannot narrow', async () => {
    for (const w of ['k IN (SELECT 0)', 'k IN (toUInt8(0))', 'k NOT IN (0, 2)', 'k IN (0, NULL)']) {
      expect((await refusal(`SELECT k FROM nums_dist WHERE ${w}`, forced)).code, w).toBe('UNABLE_TO_SKIP_SHARDS');
    }
  });

  it('NOT IN beside an IN: the IN narrows and is pruned, the NOT IN is left whole', async () => {
    expect(await queried('SELECT k FROM nums_dist WHERE k NOT IN (2, 3) AND k IN (0, 2)')).toEqual([
      'SELECT k FROM default.nums WHERE k NOT IN (2, 3) AND k IN (0)',
      'SELECT k FROM default.nums WHERE k NOT IN (2, 3) AND k IN (2)',
    ]);
  });

  it('tuple(...) sets, a single-element set, and a string converted to the key type', async () => {
    expect(await queried('SELECT k FROM nums_dist WHERE k IN tuple(0, 2)')).toHaveLength(2);
    expect(await queried('SELECT k FROM nums_dist WHERE k IN tuple(2)')).toEqual(['SELECT k FROM default.nums WHERE k IN (tuple(2))']);
    expect(await queried("SELECT k FROM nums_dist WHERE k IN (0, '255')")).toEqual(["SELECT k FROM default.nums WHERE k IN (0, '255')"]);
    expect((await refusal("SELECT k FROM nums_dist WHERE k IN (0, '255foo')")).code).toBe('TYPE_MISMATCH');
  });

  it('integers in a set on a String key are placed as their decimal text', async () => {
    const asText = await queried("SELECT sensor FROM analytics.events_dist WHERE sensor IN ('0', '2')");
    expect(asText.length).toBeGreaterThan(0);
    expect(await queried('SELECT sensor FROM analytics.events_dist WHERE sensor IN (0, 2)')).toEqual(asText.map((s) => s?.replaceAll("'", '')));
  });

  it('the key = a constant call: a condition ClickHouse evaluates, every shard queried, nothing refused', async () => {
    const all = await queried('SELECT k FROM nums_dist WHERE k = toUInt8(plus(1, 1))');
    expect(all).toHaveLength(topo.shards.length);
    // AND-ed with a set: the set narrows, the constant keeps what the set keeps.
    expect(await queried('SELECT k FROM nums_dist WHERE k = toUInt8(2) AND k IN (0, 2)')).toEqual([
      'SELECT k FROM default.nums WHERE k = toUInt8(2) AND k IN (0)',
      'SELECT k FROM default.nums WHERE k = toUInt8(2) AND k IN (2)',
    ]);
    // Not one value per query, or read from a column: no condition ClickHouse can evaluate.
    for (const w of ['k = toUInt8(rand())', 'k = toUInt8(k + 0)', 'k = (SELECT 1)', 'k = toUInt8(1) OR k = k']) {
      expect((await refusal(`SELECT k FROM nums_dist WHERE ${w}`, forced)).code, w).toBe('UNABLE_TO_SKIP_SHARDS');
    }
  });

  it('the set in the SELECT list is never pruned, even when the filter is', async () => {
    const sqls = await queried('SELECT (k IN (0, 2)) AS f FROM nums_dist WHERE k IN (0, 2)');
    expect(sqls).toEqual(['SELECT k IN (0, 2) AS f FROM default.nums WHERE k IN (0)', 'SELECT k IN (0, 2) AS f FROM default.nums WHERE k IN (2)']);
  });

  it("signed key: -1 and -2 go where identity(two's complement) puts them", async () => {
    const p = await plan('SELECT k FROM signed_dist WHERE k IN (-1, -2)', forced);
    // identity of Int8: the value as UInt32, mod 5 slots [0, 1, 1, 2, 3]
    const slots = [0, 1, 1, 2, 3];
    const expected = new Set([-1n, -2n].map((v) => slots[Number(BigInt.asUintN(32, v) % 5n)]));
    expect(new Set(p.shards.filter((s) => !s.skipped).map((s) => s.shard))).toEqual(expected);
  });
});
