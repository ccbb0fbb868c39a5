// ClickHouse's external data on the HTTP interface: each multipart file part is a temporary table
// named by its part, its columns from `<name>_structure` ("id UInt32, s String") or `<name>_types`
// ("UInt32,String": columns _1, _2, ...), its bytes in `<name>_format` (TabSeparated unless named).
// The bytes stay as sent: one engine parses them (ClickHouse's own codes for a bad format, type or
// row). A query that reads only them runs there; one over distributed tables ships their rows to
// every shard as a GLOBAL set is shipped (globals.ts: one parse, the transfer limits, `jsonEachRow`).
import type { ColumnMeta, ExternalTable } from '../clickhouse/port.js';
import { isFileFormat } from '../clickhouse/file-names.js';
import { fileFormatError } from '../plan/file-access.js';
import { settingFate } from '../plan/setting-fate.js';
import { backquote } from '../sql/quote.js';
import { ChHttpError } from './exception.js';
import { splitTopLevel } from '../clickhouse/split-list.js';
import type { RawQuery } from './types.js';

/** One external table as the request declared it. */
export interface DeclaredExternal {
  name: string;
  format: string;
  columns: ColumnMeta[];
  data: Buffer;
}

const SUFFIXES = ['_format', '_structure', '_types'] as const;
/** Names spliced into SQL and URL parameters: plain identifiers only. */
const TABLE_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;
/** The runtime's own tables (stage tables, shipped GLOBAL sets): a client's table of that name would stand in for them. */
const RUNTIME_NAME = /^_(?:stage\d+|data_\d+)$/;
const FORMAT_NAME = /^[A-Za-z][A-Za-z0-9]{0,63}$/;

/**
 * A parameter that is not a setting: an external table's `_format`, `_structure` or `_types`, and
 * any other name with those endings that is no setting (ClickHouse skips them, with or without a part).
 */
export function isExternalParam(name: string, files: ReadonlyMap<string, Buffer>): boolean {
  for (const s of SUFFIXES) {
    if (!name.endsWith(s)) continue;
    if (files.has(name.slice(0, -s.length)) || settingFate(name) === 'unknown') return true;
  }
  return false;
}

/** The columns of `<name>_structure`: `name Type` entries separated by commas outside parentheses and quotes. */
export function parseStructure(text: string): ColumnMeta[] {
  const entries = splitTopLevel(text);
  if (!entries) throw structureError(text, 'unbalanced parentheses or quotes');
  return entries.map((raw) => {
    const e = raw.trim();
    const m = /^(?:`((?:[^`\\]|\\.)+)`|([A-Za-z_][A-Za-z0-9_]*))\s+(\S[\s\S]*)$/.exec(e);
    if (!m) throw structureError(text, `expected a column name and its type, got '${e}'`);
    return { name: m[1] !== undefined ? m[1].replace(/\\(.)/g, '$1') : m[2]!, type: m[3]!.trim() };
  });
}

function structureError(text: string, why: string): ChHttpError {
  return new ChHttpError(36, `Error while parsing table structure '${text}': ${why}`);
}

/** The request's external tables (one per file part), checked as ClickHouse checks them before reading a byte. */
export function declaredExternal(files: ReadonlyMap<string, Buffer>, params: URLSearchParams): DeclaredExternal[] {
  const out: DeclaredExternal[] = [];
  for (const [name, data] of files) {
    const structure = params.get(`${name}_structure`);
    const types = params.get(`${name}_types`);
    if (!structure && !types)
      throw new ChHttpError(
        36,
        `Neither structure nor types have not been provided for external table ${name}. Use fields ${name}_structure or ${name}_types to do so.`,
      );
    if (!TABLE_NAME.test(name))
      throw new ChHttpError(
        36,
        `External table name ${JSON.stringify(name)}: ch-scatter takes names of letters, digits and underscores, not starting with a digit`,
      );
    if (RUNTIME_NAME.test(name)) throw new ChHttpError(36, `External table name ${name} is reserved for ch-scatter's own tables (_stage<i>, _data_<n>)`);
    const format = params.get(`${name}_format`) || 'TabSeparated';
    if (!FORMAT_NAME.test(format)) throw new ChHttpError(73, `Unknown format ${format}`);
    if (isFileFormat(format)) throw fileFormatError(format);
    const columns = structure
      ? parseStructure(structure)
      : types!.split(',').map((t, i) => {
          if (!t.trim()) throw structureError(types!, `type ${i + 1} is empty`);
          return { name: `_${i + 1}`, type: t.trim() };
        });
    out.push({ name, format, columns, data });
  }
  return out;
}

/** A declared table as the port carries it: the client's bytes in its format, for the engine to parse. */
export function asSent(t: DeclaredExternal): ExternalTable {
  return { name: t.name, columns: t.columns, rows: [], data: { format: t.format, base64: t.data.toString('base64') } };
}

/**
 * Each table parsed once, on one engine, into the JSONEachRow rows every shard reads (64-bit integers
 * quoted, as the adapters read JSON): what a shard receives is what ClickHouse parsed, and a bad byte
 * is the engine's own error, before any shard is asked.
 */
export async function parseOnEngine(tables: readonly DeclaredExternal[], raw: RawQuery, opts: { queryId: string; deadline: number }): Promise<ExternalTable[]> {
  return Promise.all(
    tables.map(async (t, i) => {
      const r = await raw(`SELECT * FROM ${backquote(t.name)}`, {
        format: 'JSONEachRow',
        settings: { output_format_json_quote_64bit_integers: 1 },
        queryId: `${opts.queryId}-x${i}`,
        deadline: opts.deadline,
        external: [asSent(t)],
      });
      const text = r.bytes.toString('utf8').replace(/\n$/, '');
      return { name: t.name, columns: t.columns, rows: [], jsonEachRow: text };
    }),
  );
}
