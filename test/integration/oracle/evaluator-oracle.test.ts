// The coordinator's evaluator against the real engine: each expression is evaluated by chdb
// (`SELECT expr`) and by evaluate(); the JSON value and the type must match.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { createEmbeddedAccess } from '../../../shared/adapters/clickhouse/embedded.js';
import type { ClickHouseAccess } from '../../../shared/core/clickhouse/port.js';
import { evaluate } from '../../../shared/core/partials/evaluator.js';
import { toJson } from '../../../shared/core/partials/values.js';
import { parseExpression } from '../../../shared/core/sql/index.js';

let ch: ClickHouseAccess;
let dir: string;
beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'partials-eval-'));
  ch = await createEmbeddedAccess({ path: dir });
}, 60_000);
afterAll(async () => {
  await ch?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const EXPRS = [
  '1 + 1',
  '255 + 1',
  '65535 + 1',
  '1 - 2',
  '200 - 100',
  '4294967295 + 1',
  '4294967296 * 3',
  '18446744073709551615 + 1',
  '7 / 2',
  '1 / 0',
  '-1 / 0',
  '0 / 0',
  'intDiv(7, 2)',
  'intDiv(-7, 2)',
  '7 % 3',
  '-7 % 3',
  '-(3)',
  '-(300)',
  'abs(-5)',
  'abs(-5.5)',
  '1 < 2',
  '2 <= 1',
  "'a' < 'b'",
  "'b' = 'b'",
  '1 != 1',
  '1.5 > 1',
  '1 = 1.0',
  "if(1 > 2, 'a', 'b')",
  'if(1, 1, 2.5)',
  'if(0, 1, -1)',
  "multiIf(0, 'a', 1, 'b', 'c')",
  "CASE WHEN 1 > 2 THEN 'x' ELSE 'y' END",
  'round(2.5)',
  'round(3.5)',
  'round(-2.5)',
  'round(1.23456, 2)',
  'round(1234.5, -2)',
  'floor(-1.5)',
  'ceil(1.2)',
  'floor(1.26, 1)',
  'round(17, -1)',
  'round(15, -1)',
  'floor(17, -1)',
  'ceil(11, -1)',
  'least(3, 1.5)',
  'greatest(3, 200)',
  'least(-1, 2)',
  'toFloat64(3)',
  'toInt64(3.7)',
  'toUInt64(5)',
  'isNull(NULL)',
  'isNotNull(1)',
  'ifNull(NULL, 5)',
  'coalesce(NULL, NULL, 3)',
  'NULL + 1',
  'NULL > 1',
  '1 AND 0',
  '1 OR 0',
  'NOT 1',
  'NOT 0',
  '3 IN (1, 2, 3)',
  '4 NOT IN (1, 2, 3)',
  '1 AND NULL',
  '0 AND NULL',
  '1 OR NULL',
  'sqrt(16)',
  'sqrt(2)',
  'exp(1)',
  'log(10)',
  'ln(2)',
  'log2(8)',
  'log10(1000)',
  'pow(2, 10)',
  'power(2.5, 2)',
  'sqrt(-1)',
  'isNaN(0 / 0)',
  'isFinite(1 / 0)',
  'isInfinite(-1 / 0)',
  'isNaN(NULL)',
  'toString(42)',
  "toString('x')",
  "concat('a', 'b', 'c')",
  "length('héllo')",
  "lower('AbC')",
  "upper('abÄ')",
  'toInt8(200)',
  'toUInt8(-1)',
  'toInt32(3.9)',
  'toUInt16(70000)',
  'toInt16(-3.5)',
  '(1 + 2) * 3 - 4 / 2',
  'toInt64(-5) * 2',
  'toUInt64(10) - 20',
  'toInt32(100) + toUInt32(5)',
  'toFloat64(1) + 2',
];

test.each(EXPRS)('%s', async (sql) => {
  // In the API's JSON spellings (nan/inf as strings: docs/architecture.md#the-value-model).
  const res = await ch.query(`SELECT ${sql} AS r, toTypeName(${sql}) AS t`, { settings: { output_format_json_quote_denormals: 1 } });
  const want = res.rows[0]!;
  const got = evaluate(parseExpression(sql), () => undefined);
  expect(got.t).toBe(want.t);
  // NaN's sign is not kept (docs/architecture.md#the-value-model): ClickHouse writes 0/0 as -nan.
  expect(toJson(got.v, got.t)).toEqual(want.r === '-nan' ? 'nan' : want.r);
});
