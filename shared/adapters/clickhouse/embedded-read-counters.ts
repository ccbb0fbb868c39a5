// Rows and bytes a chdb query read, for answers in any format. chdb's own result counters are the
// result's rows, and only FORMAT JSON carries a statistics block; the engine's SelectedRows and
// SelectedBytes profile events are its read figures, counted for the whole process. The engine
// queue runs one query at a time, so a reading taken just before and just after a query brackets it
// alone. A reading counts its own read of system.events too, after it has taken its values: the
// next reading's difference includes it, and it is exactly the rows and byteSize of what it read.

export const READ_COUNTERS_SQL =
  "SELECT sumIf(value, event = 'SelectedRows') AS r, sumIf(value, event = 'SelectedBytes') AS b, count() AS k, sum(byteSize(*)) AS kb " +
  'FROM system.events FORMAT JSONEachRow';

export interface ReadCounters {
  rows: number;
  bytes: number;
  /** What taking this reading read itself (counted in the next reading). */
  ownRows: number;
  ownBytes: number;
}

export function parseReadCounters(text: string): ReadCounters {
  const o = JSON.parse(text) as Record<string, string | number>;
  return { rows: Number(o.r), bytes: Number(o.b), ownRows: Number(o.k), ownBytes: Number(o.kb) };
}

/** What ran between two readings, the first reading's own read taken out. */
export function readBetween(before: ReadCounters, after: ReadCounters): { rowsRead: number; bytesRead: number } {
  return {
    rowsRead: Math.max(0, after.rows - before.rows - before.ownRows),
    bytesRead: Math.max(0, after.bytes - before.bytes - before.ownBytes),
  };
}
