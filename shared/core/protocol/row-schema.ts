// The zod schema for one row of data (a shard's result row, a shipped external-table row, a row
// to insert): a plain JSON object, whatever its keys and values.
//
// Not z.record(z.string(), z.unknown()): that walks and re-copies every key of every row, which
// for a shipped GLOBAL IN set or a 100k-group partial is most of the validation's cost
// (docs/benchmarks.md#the-machine-and-the-run) while checking nothing more (any string key and any
// value pass). What a row must be is an object that is not an array and not null; the columns are
// checked where they are used (the merger reads named columns, ClickHouse checks external data
// against its structure).
import { z } from 'zod';

const isRow = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

export const rowSchema = z.custom<Record<string, unknown>>(isRow, 'a row object');

export const rowsSchema = z.array(rowSchema);
