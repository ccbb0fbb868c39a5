// Settings and formats that make an engine open a file on its host. ClickHouse reads a format's
// schema or template from a path a setting names (format_schema, format_template_resultset,
// output_format_schema...), and writes one for some output formats: a client that sets them can read
// any file the server may read (its text comes back in the error) or create one. Refused by name on
// every route, in the text (reach-check.ts) and beside it, and again by the shard (core/shard/execute.ts).
import type { Pos } from '../sql/ast.js';
import { deniedAt } from './position.js';

/**
 * Formats that take their schema or template from a file on the engine host. CustomSeparated,
 * Regexp, Avro, Parquet and the rest name no file (their settings are escaping rules, patterns or
 * codecs); the schema-registry and path settings that Avro and the rest could read are refused as settings.
 */
export const FILE_FORMATS: readonly string[] = ['Template', 'TemplateIgnoreSpaces', 'Protobuf', 'ProtobufSingle', 'ProtobufList', 'CapnProto'];
const FILE_FORMAT_NAMES: ReadonlySet<string> = new Set(FILE_FORMATS.map((f) => f.toLowerCase()));

/** True for a format that reads or writes a file on the host (compared case-insensitively, as recent ClickHouse does). */
export const isFileFormat = (format: string): boolean => FILE_FORMAT_NAMES.has(format.trim().toLowerCase());

/** Words of a setting's name that say its value is a path on the host. */
const PATH_WORDS = new Set(['path', 'paths', 'file', 'files', 'filename', 'dir', 'directory', 'filesystem', 'schema']);

/**
 * True for a setting whose value names a file, a path, a schema or a directory on the engine host:
 * format_schema, format_schema_path, output_format_schema, format_template_resultset / row /
 * rows_between_delimiter, schema_inference_*, input_format_*_schema*, format_avro_schema_registry_url,
 * and every setting with path, file, dir or schema as a word of its name (user_files_path...).
 */
export function isFileSetting(name: string): boolean {
  const n = name.trim().toLowerCase();
  return n.startsWith('format_template') || n.split('_').some((w) => PATH_WORDS.has(w));
}

export function fileSettingError(name: string, where: string, node?: { pos?: Pos }) {
  return deniedAt(`setting ${name} (${where}) is not allowed: its value names a file or path, which the engine would open on its host`, node);
}

export function fileFormatError(format: string, node?: { pos?: Pos }) {
  return deniedAt(`FORMAT ${format} is not allowed: it reads its schema or template from a file on the engine host, or writes one; use another format`, node);
}

/** The format and settings an engine gets beside the text: no file format, no file-naming setting. */
export function checkEngineOptions(opts: { format?: string | undefined; settings?: Readonly<Record<string, unknown>> | undefined; where: string }): void {
  if (opts.format !== undefined && isFileFormat(opts.format)) throw fileFormatError(opts.format);
  for (const name of Object.keys(opts.settings ?? {})) if (isFileSetting(name)) throw fileSettingError(name, opts.where);
}
