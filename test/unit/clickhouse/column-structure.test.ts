// An empty column's structure as ClickHouse prints it in its 352 (two columns of one name, different types),
// against ClickHouse itself (chdb in this process) for each type the helper spells.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Session } from 'chdb';
import { columnStructure } from '../../../shared/core/clickhouse/column-structure.js';

const dir = mkdtempSync(join(tmpdir(), 'column-structure-'));
const session = new Session(dir);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The structure ClickHouse names for a column of `type` beside a UInt256 of the same name. */
async function engineStructure(type: string): Promise<string> {
  const sql =
    `SELECT * FROM (SELECT 1 AS k, CAST(1 AS UInt256) AS s) JOIN (SELECT 1 AS k, defaultValueOfTypeName('${type.replaceAll("'", "\\'")}') AS s) ` +
    'USING k SETTINGS joined_subquery_requires_alias = 0';
  const e = await session.queryAsync(sql, { format: 'TSV' }).then(
    () => undefined,
    (err: unknown) => String(err),
  );
  const line = e?.split('\n').find((l) => l.startsWith(`s ${type} `));
  if (!line) throw new Error(`no 352 naming ${type}: ${e}`);
  return line.slice(`s ${type} `.length).replace(/\. \(AMBIGUOUS_COLUMN_NAME\)$/, '');
}

const TYPES = [
  'UInt8',
  'Int128',
  'Float32',
  'BFloat16',
  'String',
  'FixedString(3)',
  'UUID',
  'IPv4',
  'IPv6',
  'Bool',
  'Date',
  'Date32',
  'DateTime',
  "DateTime('UTC')",
  'DateTime64(3)',
  "Enum8('a' = 1)",
  "Enum16('a' = 1)",
  'Decimal(5, 2)',
  'Decimal(10, 2)',
  'Decimal(20, 2)',
  'Decimal(40, 2)',
  'Nullable(UInt64)',
  'Array(String)',
  'Array(Nullable(UInt8))',
  'Tuple(a UInt8, b String)',
  'Tuple(UInt8, Array(String))',
  'Map(String, UInt8)',
  'LowCardinality(String)',
  'LowCardinality(Nullable(String))',
  'LowCardinality(UInt8)',
  'Array(LowCardinality(String))',
];

describe('columnStructure', () => {
  it.each(TYPES)('%s is printed as ClickHouse prints it', async (type) => {
    expect(columnStructure(type)).toBe(await engineStructure(type));
  });

  it('spells nothing for a type whose storage it does not know', () => {
    for (const t of ['JSON', 'Dynamic', 'Variant(UInt8, String)', 'Nested(a UInt8)', 'Weird(']) expect(columnStructure(t)).toBeUndefined();
  });
});
