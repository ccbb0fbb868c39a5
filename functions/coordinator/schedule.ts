// Scheduled queries: EventBridge invokes the coordinator with {"kind":"ch-scatter.schedule",
// "name":"<schedule>"} (events.ts validates it); we run the saved SQL through the normal runtime and insert the result rows,
// each with the run time (`_run_time`, DateTime UTC) and the partial flag (`_partial`, UInt8),
// into destination.table through the router. The rows travel to each shard's local table as
// `insert` requests to the shard functions (which alone hold the ClickHouse credentials and accept
// inserts only into the schedule destinations), never over a database connection of our own.
// A failed or partial run is logged and counted; a failed run also throws, so the invocation is
// recorded as failed. It is NOT retried: the CDK stack sets the coordinator's async retries to 0
// (a retried rollup would write its rows twice), so the next scheduled run is the retry.
import { ScatterError } from '../../shared/core/errors.js';
import { executeQuery, type RunDeps } from '../../shared/core/scatter/run-query.js';
import type { Topology } from '../../shared/core/config/schema.js';

export type RowWriter = (table: string, rows: Record<string, unknown>[]) => Promise<{ inserted: number; perShard: number[] }>;

export interface ScheduleRun {
  name: string;
  destination: string;
  rows: number;
  partial: boolean;
  runTime: string;
  missing: number;
  perShard: number[];
}

/** 'YYYY-MM-DD hh:mm:ss' in UTC: what a DateTime column takes in JSONEachRow. */
export function dateTimeText(ms: number): string {
  return new Date(ms).toISOString().slice(0, 19).replace('T', ' ');
}

export async function runSchedule(name: string, topo: Topology, deps: RunDeps & { writeRows: RowWriter }): Promise<ScheduleRun> {
  const schedule = topo.schedules.find((x) => x.name === name);
  if (!schedule)
    throw new ScatterError('BAD_REQUEST', `no schedule named "${name}" in the topology (have: ${topo.schedules.map((x) => x.name).join(', ') || 'none'})`);
  const runTime = dateTimeText((deps.now ?? Date.now)());
  const res = await executeQuery({ sql: schedule.sql }, { ...deps, behindApiGateway: false });
  const rows = res.data.map((r) => {
    if ('_run_time' in r || '_partial' in r)
      throw new ScatterError('BAD_REQUEST', `schedule ${name}: the query must not produce columns named _run_time or _partial (they are added)`);
    return { ...r, _run_time: runTime, _partial: res.partial ? 1 : 0 };
  });
  const written = rows.length > 0 ? await deps.writeRows(schedule.destination.table, rows) : { inserted: 0, perShard: topo.shards.map(() => 0) };
  return {
    name,
    destination: schedule.destination.table,
    rows: written.inserted,
    partial: res.partial,
    runTime,
    missing: res.shards.missing.length,
    perShard: written.perShard,
  };
}
