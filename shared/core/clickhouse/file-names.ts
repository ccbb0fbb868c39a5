// The settings and formats that make a ClickHouse engine open a file on its host, by name: the
// planner's refusals (shared/core/plan/file-access.ts) and the shard's own (shared/core/shard/execute.ts) read
// these lists, so both refuse the same names.

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
