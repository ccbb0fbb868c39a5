// The one reader of a setting's truth value against ClickHouse's own reading (chdb in this process):
// a Bool setting (join_use_nulls) and a UInt64 one used as a flag (force_optimize_skip_unused_shards),
// for the values people write and for generated ones. The planner's readers all go through it.
import fc from 'fast-check';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Session } from 'chdb';
import type { SettingValue } from '../../../shared/core/clickhouse/port.js';
import { boolSetting, boolSettingRefusal, uintSettingFlag } from '../../../shared/core/clickhouse/setting-truth.js';
import { parseTopology } from '../../../shared/core/config/load.js';
import { positionalArgumentsOn } from '../../../shared/core/plan/positional.js';
import { resolveSettings } from '../../../shared/core/plan/settings.js';
import { productModeOf } from '../../../shared/core/scatter/plan-inputs.js';
import { parseSelect } from '../../../shared/core/sql/index.js';
import { quoteStringLiteral } from '../../../shared/core/sql/quote.js';

const dir = mkdtempSync(join(tmpdir(), 'setting-truth-'));
const session = new Session(dir);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const literal = (v: SettingValue) => (typeof v === 'string' ? quoteStringLiteral(v) : String(v));

/** ClickHouse's reading of `name = v`: the setting's value as a number, or the error's code. */
async function engine(name: string, v: SettingValue): Promise<{ value: number } | { code: number }> {
  try {
    const r = await session.queryAsync(`SELECT toUInt64(getSetting('${name}')) AS v SETTINGS ${name} = ${literal(v)}`, { format: 'JSONCompact' });
    return { value: Number(JSON.parse(r.text()).data[0][0]) };
  } catch (e) {
    return { code: Number(/Code: (\d+)/.exec(String(e))?.[1]) };
  }
}

const WRITTEN: SettingValue[] = [
  '',
  'true',
  'false',
  'TRUE',
  'False',
  '1',
  '0',
  ' 1',
  '1 ',
  '2',
  '10',
  'on',
  'off',
  'yes',
  't',
  0,
  1,
  2,
  -1,
  1.5,
  1.0,
  true,
  false,
];

async function expectBoolAsEngine(v: SettingValue): Promise<void> {
  const want = await engine('join_use_nulls', v);
  const got = boolSetting(v);
  if ('value' in want) expect(got, literal(v)).toBe(want.value === 1);
  else {
    expect(got, literal(v)).toBeUndefined();
    expect(boolSettingRefusal(v).code, literal(v)).toBe(want.code);
  }
}

async function expectFlagAsEngine(v: SettingValue): Promise<void> {
  const want = await engine('force_optimize_skip_unused_shards', v);
  const got = uintSettingFlag(v);
  if ('value' in want) expect(got, literal(v)).toBe(want.value !== 0);
  else expect(got, literal(v)).toBeUndefined();
}

describe("a setting's truth value, as ClickHouse reads it", () => {
  it('a Bool setting: the values people write', async () => {
    for (const v of WRITTEN) await expectBoolAsEngine(v);
  });
  it('a UInt64 setting read as a flag: the values people write', async () => {
    for (const v of WRITTEN.filter((x) => typeof x !== 'number' || Number.isInteger(x))) await expectFlagAsEngine(v);
  });
  it('generated values (short strings over the letters of true/false and digits, small integers)', async () => {
    const value = fc.oneof(
      fc.string({ unit: fc.constantFrom('t', 'R', 'u', 'E', 'f', 'a', 'L', 's', '0', '1', '2', ' '), maxLength: 6 }),
      fc.integer({ min: -3, max: 300 }),
      fc.boolean(),
    );
    await fc.assert(
      fc.asyncProperty(value, async (v) => {
        await expectBoolAsEngine(v);
        await expectFlagAsEngine(v);
      }),
      { numRuns: 60 },
    );
  });
});

describe('every reader goes through it', () => {
  const defaults = { timeoutMs: 5000, maxRowsToTransfer: 1000, maxBytesToTransfer: 1000, transferOverflowMode: 'throw' } as never;
  const topo = parseTopology({
    cluster: 'c',
    shards: [{ replicas: [{ embedded: '/nonexistent/0' }] }],
    tables: { 'db.dist': { local: 'db.local', shardingKey: { column: 'k', type: 'String', function: 'xxHash64' } } },
  });
  it("the planner refuses what ClickHouse refuses, with ClickHouse's code and the value's position", () => {
    for (const [sql, code] of [
      ["SELECT 1 FROM db.dist SETTINGS optimize_skip_unused_shards = ''", 467],
      ['SELECT 1 FROM db.dist SETTINGS prefer_global_in_and_join = 2', 70],
      ["SELECT 1 FROM db.dist SETTINGS enable_positional_arguments = 'on'", 467],
      ["SELECT 1 FROM db.dist SETTINGS join_use_nulls = ' 1'", 467],
    ] as const) {
      const stmt = parseSelect(sql);
      let err: any;
      try {
        resolveSettings({}, stmt.settings, defaults, {});
      } catch (e) {
        err = e;
      }
      expect(err?.code, sql).toBe('BAD_REQUEST');
      expect(err.details?.clickhouse?.code, sql).toBe(code);
      expect(err.position, sql).toEqual({ line: 1, column: sql.lastIndexOf('=') + 3 });
    }
  });
  it("what it accepts, each reader reads alike ('TRUE', 'False', 1, 0)", () => {
    const on = (v: SettingValue) => resolveSettings({ optimize_skip_unused_shards: v }, [], defaults, {}).skipUnusedShards;
    expect([on('TRUE'), on('False'), on(1), on(0), on(true)]).toEqual([true, false, true, false, true]);
    const q = parseSelect('SELECT 1 FROM db.dist');
    expect([positionalArgumentsOn(q, { enable_positional_arguments: 'FALSE' }), positionalArgumentsOn(q, { enable_positional_arguments: 'True' })]).toEqual([
      false,
      true,
    ]);
    expect(positionalArgumentsOn(parseSelect("SELECT 1 FROM db.dist SETTINGS enable_positional_arguments = 'false'"), {})).toBe(false);
    expect([productModeOf({ prefer_global_in_and_join: 'TRUE' }, topo), productModeOf({ prefer_global_in_and_join: 'false' }, topo)]).toEqual([
      'global',
      'deny',
    ]);
    // force_optimize_skip_unused_shards is a UInt64: 2 is on.
    expect(resolveSettings({ force_optimize_skip_unused_shards: 2 }, [], defaults, {}).forceSkip).toBe(true);
  });
});
