// Checks of the raw-output primitive shared by the chdb and the 18.16 suites: the same assertions
// on both engines, so the two adapters are held to one behaviour.
import { expect } from 'vitest';
import type { ClickHouseAccess, StageTable } from '../../shared/core/clickhouse/port.js';

/** Split a TabSeparatedWithNamesAndTypes answer into its header (names, types) and its row bytes. */
export function splitTsvWithNamesAndTypes(bytes: Buffer): { columns: { name: string; type: string }[]; body: Buffer } {
  const first = bytes.indexOf(0x0a);
  const second = bytes.indexOf(0x0a, first + 1);
  if (first < 0 || second < 0) throw new Error('not a TabSeparatedWithNamesAndTypes answer');
  const names = bytes.subarray(0, first).toString('utf8').split('\t');
  const types = bytes
    .subarray(first + 1, second)
    .toString('utf8')
    .split('\t');
  return { columns: names.map((name, i) => ({ name, type: types[i]! })), body: bytes.subarray(second + 1) };
}

/**
 * Aggregate states from two halves of `t` (k UInt64, s String, v Int32), loaded into one stage
 * table and merged, give what one query over all of `t` gives.
 */
export async function expectStatesMergeLikeOneQuery(ch: ClickHouseAccess, settings: Record<string, string | number> = {}): Promise<void> {
  const stage1 = (half: string) =>
    `SELECT s AS _k0, uniqState(k) AS _a0, sumState(toDecimal64(v, 4) / 3) AS _a1, quantileExactState(0.5)(v) AS _a2 FROM t WHERE ${half} GROUP BY s`;
  const a = splitTsvWithNamesAndTypes((await ch.queryRaw(stage1('k % 2 = 0'), { format: 'TabSeparatedWithNamesAndTypes', settings })).bytes);
  const b = splitTsvWithNamesAndTypes((await ch.queryRaw(stage1('k % 2 = 1'), { format: 'TabSeparatedWithNamesAndTypes', settings })).bytes);
  expect(b.columns).toEqual(a.columns);
  expect(a.columns.map((c) => c.type)).toEqual([
    'String',
    'AggregateFunction(uniq, UInt64)',
    expect.stringMatching(/^AggregateFunction\(sum, Decimal/),
    'AggregateFunction(quantileExact(0.5), Int32)',
  ]);
  const table: StageTable = { name: '_stage0', columns: a.columns, data: Buffer.concat([a.body, b.body]) };
  const merged = await ch.queryRaw(
    'SELECT _k0 AS s, uniqMerge(_a0) AS u, sumMerge(_a1) AS d, quantileExactMerge(0.5)(_a2) AS q FROM _stage0 GROUP BY _k0 ORDER BY s',
    {
      format: 'TabSeparated',
      tables: [table],
      settings,
    },
  );
  const direct = await ch.queryRaw('SELECT s, uniq(k) AS u, sum(toDecimal64(v, 4) / 3) AS d, quantileExact(0.5)(v) AS q FROM t GROUP BY s ORDER BY s', {
    format: 'TabSeparated',
    settings,
  });
  expect(merged.bytes.toString('utf8')).toBe(direct.bytes.toString('utf8'));
  expect(merged.bytes.length).toBeGreaterThan(0);
}
