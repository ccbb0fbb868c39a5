// `x IN <name>`: the right side names a table, and it follows the FROM rules. Refusals are checked
// in the planner; what ClickHouse itself does with such names (it reads the table) is checked on
// chdb, so the rule is about the engine's behaviour, not a guess.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createEmbeddedAccess } from '../../../shared/adapters/clickhouse/embedded.js';
import type { ClickHouseAccess } from '../../../shared/core/clickhouse/port.js';
import { planQueryWith } from '../../../shared/core/plan/index.js';
import { ScatterError } from '../../../shared/core/errors.js';
import { passThroughSplit, testTopology } from '../../unit/plan/fixtures.js';

let dir: string;
let ch: ClickHouseAccess;
beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'in-table-'));
  ch = await createEmbeddedAccess({ path: dir });
  await ch.exec('CREATE TABLE default.t (k UInt64, arr Array(UInt64)) ENGINE = MergeTree ORDER BY k');
  await ch.exec('INSERT INTO default.t SELECT number, [number] FROM numbers(10)');
  await ch.exec('CREATE TABLE default.s (k UInt64) ENGINE = MergeTree ORDER BY k');
  await ch.exec('INSERT INTO default.s VALUES (3), (5)');
}, 60_000);
afterAll(async () => {
  await ch?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const topo = testTopology();
const T = 'analytics.events_dist';

async function plan(sql: string, settings: Record<string, string> = {}): Promise<ScatterError | string> {
  try {
    const p = await planQueryWith(sql, topo, { settings }, passThroughSplit);
    return p.shards.find((s) => !s.skipped)?.sql ?? '';
  } catch (e) {
    if (e instanceof ScatterError) return e;
    throw e;
  }
}

describe('x IN <table name>', () => {
  it('ClickHouse reads a name on the right of IN as a table (the reason for the rule)', async () => {
    expect((await ch.query('SELECT count() AS c FROM default.t WHERE k IN system.one')).rows[0]!.c).toBe('1');
    expect((await ch.query('SELECT count() AS c FROM default.t WHERE k IN default.s')).rows[0]!.c).toBe('2');
    expect((await ch.query('SELECT count() AS c FROM default.t WHERE k IN s')).rows[0]!.c).toBe('2'); // unqualified: the default database
  });

  it.each([
    [`SELECT count() FROM ${T} WHERE 1 IN system.tables`, 'system.tables'],
    [`SELECT count() FROM ${T} WHERE value IN system.numbers`, 'system.numbers'],
    [`SELECT count() FROM ${T} WHERE (sensor, value) IN analytics.events`, 'analytics.events'],
    [`SELECT count() FROM ${T} WHERE value NOT IN system.numbers`, 'system.numbers'],
    [`SELECT count() FROM ${T} WHERE value GLOBAL IN system.numbers`, 'system.numbers'],
    [`SELECT count() FROM ${T} WHERE sensor IN (SELECT sensor FROM ${T} WHERE value IN system.numbers)`, 'system.numbers'],
    [`SELECT count() FROM ${T} WHERE value IN (SELECT 1 WHERE 1 IN system.tables)`, 'system.tables'],
    [`SELECT count() FROM ${T} WHERE value IN some_table`, 'some_table'],
    [`SELECT sensor, count() FROM ${T} GROUP BY sensor HAVING max(value) IN system.numbers`, 'system.numbers'],
  ])('%s -> UNKNOWN_TABLE naming %s', async (sql, name) => {
    const e = await plan(sql);
    expect(e, sql).toBeInstanceOf(ScatterError);
    expect((e as ScatterError).code).toBe('UNKNOWN_TABLE');
    expect((e as ScatterError).message).toContain(`the right side of IN names the table ${name}`);
    expect((e as ScatterError).position).toBeDefined();
  });

  it('a shard-local table gets the hint to query its distributed table', async () => {
    const e = (await plan(`SELECT count() FROM ${T} WHERE (sensor, value) IN analytics.events`)) as ScatterError;
    expect(e.message).toMatch(/shard-local table behind analytics\.events_dist/);
  });

  it('a configured distributed table follows distributed_product_mode, as IN (SELECT ...) does', async () => {
    const deny = (await plan(`SELECT count() FROM ${T} WHERE sensor IN ${T}`)) as ScatterError;
    expect(deny.code).toBe('UNSUPPORTED');
    expect(deny.message).toMatch(/distributed_product_mode = 'deny'/);
    const local = await plan(`SELECT count() FROM ${T} WHERE sensor IN ${T}`, { distributed_product_mode: 'local' });
    expect(local).toMatch(/IN analytics\.events\b/);
  });

  it('system.one, a constant table every engine holds, is the set itself: the shard reads it, GLOBAL or not', async () => {
    for (const op of ['IN', 'GLOBAL IN', 'NOT IN', 'GLOBAL NOT IN']) {
      const shard = await plan(`SELECT count() FROM ${T} WHERE value ${op} system.one`);
      expect(shard, op).toBe(`SELECT count() FROM analytics.events WHERE value ${op.replace('GLOBAL ', '')} system.one`);
    }
    expect(await plan(`SELECT count() FROM ${T} WHERE value IN (SELECT 1 WHERE 1 IN system.one)`)).toMatch(/1 IN system\.one\)$/);
    // The engine answers it as the subquery's set, under the name as written.
    const named = await ch.query('SELECT k IN system.one FROM default.t WHERE k < 2 ORDER BY k');
    expect(named.meta.map((m) => m.name)).toEqual(['in(k, system.one)']);
    expect(named.rows.map((r) => Object.values(r)[0])).toEqual([1, 0]);
  });

  it('names the query defines as expressions pass: WITH names, aliases, lambda parameters', async () => {
    expect(typeof (await plan(`WITH (1, 2) AS s SELECT count() FROM ${T} WHERE value IN s`))).toBe('string');
    expect(typeof (await plan(`SELECT [1, 2] AS a, count() FROM ${T} WHERE value IN a GROUP BY a`))).toBe('string');
    expect(typeof (await plan(`SELECT arrayFilter(x -> 1 IN x, [[1], [2]]) AS f FROM ${T}`))).toBe('string');
    expect(typeof (await plan(`SELECT count() FROM ${T} WHERE value IN (1, 2, 3)`))).toBe('string');
  });
});
