// Settings and formats that make an engine open a file on its host. ClickHouse reads a format's
// schema or template from a path a setting names (format_schema, format_template_resultset,
// output_format_schema...), and writes one for some output formats: a client that sets them can read
// any file the server may read (its text comes back in the error) or create one. Refused by name on
// every route, in the text (reach-check.ts) and beside it, and again by the shard (shared/core/shard/execute.ts).
// Which names those are: shared/core/clickhouse/file-names.ts (the shard reads the same lists).
import type { Pos } from '../sql/ast.js';
import { deniedAt } from './position.js';
import { isFileFormat, isFileSetting } from '../clickhouse/file-names.js';

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
