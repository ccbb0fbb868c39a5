// Reading a ClickHouse FORMAT JSON body (meta, data, statistics) into a QueryResult.
// Shared by both adapters; statistics come from the body, the engine's own read counters.
import type { ColumnMeta, QueryResult } from '../../core/clickhouse/port.js';

interface JsonFormatBody {
  meta: ColumnMeta[];
  data: Record<string, unknown>[];
  statistics?: { elapsed?: number; rows_read?: number; bytes_read?: number };
}

/** A FORMAT JSON body as a QueryResult (shared with the HTTP adapter). */
export function parseJsonResult(text: string, fallbackElapsedSec = 0): QueryResult {
  let body: JsonFormatBody;
  try {
    body = JSON.parse(text) as JsonFormatBody;
  } catch (e) {
    // Defence in depth for the chdb leftover-output quirk: the real document is the last one.
    const at = text.lastIndexOf('\n{\n');
    if (at < 0) throw e;
    body = JSON.parse(text.slice(at + 1)) as JsonFormatBody;
  }
  const st = body.statistics ?? {};
  return {
    meta: body.meta.map((m) => ({ name: m.name, type: m.type })),
    rows: body.data,
    statistics: {
      elapsedMs: (st.elapsed ?? fallbackElapsedSec) * 1000,
      rowsRead: Number(st.rows_read ?? 0),
      bytesRead: Number(st.bytes_read ?? 0),
    },
  };
}
