// Routing rows to shards: each row's sharding-key value through the table's Placement, one
// batch per shard. Rows that cannot be placed (bad JSON, missing key, wrong type) are collected
// with their 1-based line number instead of being dropped or guessed at.
import type { Topology } from '../config/schema.js';
import { qualifyTable } from '../config/load.js';
import { ScatterError, isScatterError } from '../errors.js';
import type { KeyValue, Placement } from '../sharding/index.js';
import { parseRowLine } from './json-lines.js';

export type Row = Record<string, unknown>;

export interface BadRow {
  /** 1-based line number in the input (row index + 1 when rows were given as objects). */
  line: number;
  reason: 'bad_json' | 'missing_key' | 'type_mismatch';
  message: string;
}

export interface RoutedBatches {
  /** The Distributed name the rows were addressed to (db.table). */
  table: string;
  /** The shard-local table they are written to (db.table). */
  local: string;
  /** batches[i]: rows for shards[i], in input order. */
  batches: Row[][];
  /** Line numbers of the rows in each batch, parallel to `batches`. */
  lines: number[][];
  /**
   * For text input: each row's line exactly as the client sent it, parallel to `batches`. These are
   * what is written (parsing is only for the sharding key): a decimal or a float re-serialized from
   * JSON.parse is not the value the client sent.
   */
  texts?: string[][];
  bad: BadRow[];
  /** Rows read (good + bad; blank lines are not rows). */
  total: number;
}

/** JSONEachRow text, its lines, or already-parsed row objects. */
export type RouteInput = string | readonly string[] | readonly Row[];

function isRowArray(input: readonly unknown[]): input is readonly Row[] {
  return input.length > 0 && typeof input[0] !== 'string';
}

/** The configured table for a Distributed name, or UNKNOWN_TABLE. */
export function tableFor(topo: Topology, tableName: string) {
  const name = qualifyTable(tableName);
  const table = topo.tables[name];
  if (!table) {
    throw new ScatterError('UNKNOWN_TABLE', `unknown table ${name}; configured: ${Object.keys(topo.tables).join(', ')}`);
  }
  return { name, table };
}

export function routeRows(input: RouteInput, tableName: string, topo: Topology, placement: Placement): RoutedBatches {
  const { name, table } = tableFor(topo, tableName);
  const key = table.shardingKey;
  if (placement.key.column !== key.column || placement.key.type !== key.type || placement.key.function !== key.function) {
    throw new ScatterError(
      'INTERNAL',
      `placement is for ${placement.key.function}(${placement.key.column} ${placement.key.type}), table ${name} shards by ${key.function}(${key.column} ${key.type})`,
    );
  }
  if (placement.slots.length === 0 || Math.max(...placement.slots) >= topo.shards.length) {
    throw new ScatterError('INTERNAL', `placement slots do not match the ${topo.shards.length} configured shards`);
  }
  const out: RoutedBatches = {
    table: name,
    local: table.local,
    batches: topo.shards.map(() => []),
    lines: topo.shards.map(() => []),
    bad: [],
    total: 0,
  };

  const place = (row: Row, line: number, text?: string) => {
    out.total++;
    if (row === null || typeof row !== 'object' || Array.isArray(row)) {
      out.bad.push({ line, reason: 'bad_json', message: 'not a JSON object' });
      return;
    }
    if (!Object.hasOwn(row, key.column)) {
      out.bad.push({ line, reason: 'missing_key', message: `missing sharding key column "${key.column}"` });
      return;
    }
    let shard: number;
    try {
      // shardOf coerces (and refuses) the raw JSON value itself, with the same messages.
      shard = placement.shardOf(row[key.column] as KeyValue);
    } catch (e) {
      if (!isScatterError(e)) throw e;
      out.bad.push({ line, reason: 'type_mismatch', message: `column "${key.column}": ${e.message}` });
      return;
    }
    out.batches[shard]!.push(row);
    out.lines[shard]!.push(line);
    if (text !== undefined) out.texts![shard]!.push(text);
  };

  if (typeof input !== 'string' && isRowArray(input)) {
    for (const [i, row] of input.entries()) place(row, i + 1);
    return out;
  }
  const lines = typeof input === 'string' ? input.split('\n') : (input as readonly string[]);
  out.texts = topo.shards.map(() => []);
  lines.forEach((raw, i) => {
    const text = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (text.trim() === '') return;
    let row: Row;
    try {
      row = parseRowLine(text);
    } catch (e) {
      out.total++;
      out.bad.push({ line: i + 1, reason: 'bad_json', message: `not a JSON object: ${(e as Error).message}` });
      return;
    }
    place(row, i + 1, text);
  });
  return out;
}
