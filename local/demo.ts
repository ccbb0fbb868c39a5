// Demo data for `ch-scatter dev --demo` / `npm start`: the sensor table on every replica and
// DEMO_ROWS rows generated inside each shard engine with INSERT ... SELECT FROM numbers(),
// filtered to the rows whose sharding key lands on that shard (xxHash64(sensor) mod slots, the
// same rule as the router and ClickHouse's Distributed engine). Nothing crosses the wire but SQL,
// so a million rows load in about a second.
import type { ClickHouseAccess } from '../shared/core/clickhouse/port.js';
import type { Topology } from '../shared/core/config/schema.js';

export const DEMO_ROWS = 1_000_000;
export const DEMO_TABLE = 'analytics.sensor_events_dist';
export const DEMO_LOCAL = 'analytics.sensor_events';

export const DEMO_DDL = [
  'CREATE DATABASE IF NOT EXISTS analytics',
  `DROP TABLE IF EXISTS ${DEMO_LOCAL}`,
  `CREATE TABLE ${DEMO_LOCAL} (ts DateTime, sensor String, site String, metric String, value Float64, status UInt16) ENGINE = MergeTree ORDER BY (sensor, ts)`,
  // The destination of the example config's `site-rollup` schedule: its columns plus the two a scheduled run adds.
  'CREATE TABLE IF NOT EXISTS analytics.site_rollups (site String, rows UInt64, avg_value Float64, _run_time DateTime, _partial UInt8) ENGINE = MergeTree ORDER BY (site, _run_time)',
];

/** The generated rows, one per number; the same expression the oracle can run. */
export function demoSelect(rows = DEMO_ROWS): string {
  return `SELECT toDateTime('2026-01-01 00:00:00') + number * 3 AS ts,
  concat('s-', toString(number % 5000)) AS sensor,
  ['ams', 'fra', 'iad', 'sfo', 'syd'][number % 5 + 1] AS site,
  ['temp', 'humidity', 'pressure'][intDiv(number, 7) % 3 + 1] AS metric,
  round((number % 1000) / 10 + sin(number), 3) AS value,
  toUInt16(if(number % 97 = 0, 500, 200)) AS status
FROM numbers(${rows})`;
}

/** Slots (docs/api.md#4-placement) of the shards, each index repeated weight times. */
export function slotsOf(topo: Topology): number[] {
  return topo.shards.flatMap((s, i) => Array.from({ length: s.weight }, () => i));
}

export function demoInsertFor(topo: Topology, shard: number, rows = DEMO_ROWS): string {
  const slots = slotsOf(topo);
  const mine = slots.flatMap((s, k) => (s === shard ? [k] : []));
  return `INSERT INTO ${DEMO_LOCAL} SELECT * FROM (${demoSelect(rows)}) WHERE xxHash64(sensor) % ${slots.length} IN (${mine.join(', ')})`;
}

/** Create and fill the demo table on every replica (every replica of a shard gets the shard's rows). */
export async function loadDemo(
  topo: Topology,
  access: (shard: number, replica: number) => ClickHouseAccess,
  rows = DEMO_ROWS,
): Promise<{ rows: number; ms: number }> {
  const t0 = Date.now();
  await Promise.all(
    topo.shards.flatMap((s, i) =>
      s.replicas.map(async (_, j) => {
        const a = access(i, j);
        for (const ddl of DEMO_DDL) await a.exec(ddl);
        await a.exec(demoInsertFor(topo, i, rows));
      }),
    ),
  );
  return { rows, ms: Date.now() - t0 };
}

export function demoExamples(url: string): string {
  const qs = [
    `SELECT count() AS rows FROM ${DEMO_TABLE}`,
    `SELECT site, count() AS c, round(avg(value), 3) AS avg_value FROM ${DEMO_TABLE} GROUP BY site ORDER BY site`,
    `SELECT sensor, count() AS c, max(value) AS peak FROM ${DEMO_TABLE} WHERE sensor IN ('s-1', 's-42') GROUP BY sensor ORDER BY sensor`,
    `SELECT metric, uniq(sensor) AS sensors, quantile(0.95)(value) AS p95 FROM ${DEMO_TABLE} GROUP BY metric ORDER BY metric`,
    `SELECT sensor, count() AS errors FROM ${DEMO_TABLE} WHERE status = 500 GROUP BY sensor ORDER BY errors DESC, sensor LIMIT 5`,
  ];
  const lines = ['', `the web console (each query's shard timeline): ${url}/play`, '', 'example queries:'];
  for (const q of qs) lines.push(`  npx ch-scatter query --url ${url} "${q}"`);
  lines.push(`  npx ch-scatter query --timeline --url ${url} "${qs[1]}"`);
  lines.push('', 'the site-rollup schedule runs every 5 minutes; fire it now and read its output:');
  lines.push(`  curl -s -X POST '${url}/admin/schedule?name=site-rollup'`);
  lines.push(`  npx ch-scatter query --url ${url} "SELECT * FROM analytics.site_rollups_dist ORDER BY _run_time DESC, site LIMIT 10"`);
  lines.push(
    '',
    'or with curl:',
    `  curl -s ${url}/query -d '{"sql": "${qs[0]}"}'`,
    `  curl -s ${url}/explain -d '{"sql": "${qs[2]!.replace(/'/g, "'\\''")}"}'`,
    `  curl -s ${url}/health`,
    '',
  );
  return lines.join('\n');
}
