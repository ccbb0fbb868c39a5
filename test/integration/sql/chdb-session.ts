// One chdb Session per test process (chdb allows one data directory per process), in a fresh
// temp dir, with small fixture tables every SQL-front-end test can query.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Session } from 'chdb';

export interface SqlTestEngine {
  session: Session;
  /** Runs a query and returns ClickHouse's JSON output (meta + data). */
  json(sql: string): { meta: { name: string; type: string }[]; data: Record<string, unknown>[] };
  close(): void;
}

// NOTE: after a failed query chdb 3.4 can leak that query's partial output into the NEXT query's
// result; corpus queries must all succeed, or later comparisons see garbage.
// Columns cover the types the corpus touches: ints, strings, floats, arrays, tuples, nullable, dates.
const FIXTURE = [
  'CREATE DATABASE IF NOT EXISTS db',
  `CREATE TABLE db.t (a UInt32, b Int64, s String, f Float64, arr Array(UInt8), t Tuple(UInt8, String),
     n Nullable(UInt8), d Date, dt DateTime, k UInt64) ENGINE = MergeTree ORDER BY (a, intHash32(a)) SAMPLE BY intHash32(a)`,
  `INSERT INTO db.t SELECT number % 7, toInt64(number) - 10, concat('s-', toString(number % 5)), number / 3,
     [toUInt8(number % 3), 1], (toUInt8(number % 2), 'y'), if(number % 4 = 0, NULL, toUInt8(number)),
     toDate('2024-01-01') + number, toDateTime('2024-01-01 00:00:00') + number * 3600, number FROM numbers(50)`,
  'CREATE TABLE db.u (a UInt32, v String) ENGINE = MergeTree ORDER BY a',
  "INSERT INTO db.u SELECT number, concat('v', toString(number)) FROM numbers(10)",
  'CREATE TABLE db.one (a UInt32) ENGINE = MergeTree ORDER BY a',
  'INSERT INTO db.one SELECT number * 2 FROM numbers(5)',
  'CREATE TABLE db.r (a UInt32, v UInt32) ENGINE = ReplacingMergeTree ORDER BY a',
  'INSERT INTO db.r SELECT number % 3, number FROM numbers(9)',
];

export function openEngine(tag: string): SqlTestEngine {
  const dir = mkdtempSync(join(tmpdir(), `h2-sql-${tag}-`));
  const session = new Session(dir);
  for (const q of FIXTURE) session.query(q, 'CSV');
  return {
    session,
    json(sql) {
      return JSON.parse(session.query(sql, 'JSON')) as ReturnType<SqlTestEngine['json']>;
    },
    close() {
      session.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
