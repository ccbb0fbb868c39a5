// The embedded engine (chdb) runs inside the shard host's process, with that process's file
// access: anything that makes it read or write a file by name must be unable to take effect,
// whatever SQL or settings reach the adapter (the planner refuses them first; this is the layer
// below it). chdb loads a server config and a users config at connect, so the engine itself
// enforces it:
// - the settings that name a file, a schema file or a URL are constraints `<const/>` at their
//   defaults: any query, SETTINGS clause or SET that changes one fails with code 452;
// - the user holds every grant but SOURCES: file(), url(), remote(), s3() ... fail with code 497
//   (clickhouse-local reads file() paths anywhere, user_files_path confines nothing there);
// - user_files_path and format_schema_path are an empty directory of this engine's own.
// The engine does not check constraints in a subquery's SETTINGS clause (measured on chdb 26.7:
// `(SELECT ... FROM format(CSV, ...) SETTINGS input_format_record_errors_file_path = '...')`
// wrote that file), and INTO OUTFILE is a clause no grant or setting governs: the adapter refuses
// both in the text before the engine sees it (refuseFileReach).
import fs from 'node:fs';
import path from 'node:path';
import { ClickHouseError, type SettingValue } from '../../core/clickhouse/port.js';
import { assignedSettings } from '../../core/clickhouse/sql-text.js';
import { tokenize } from '../../core/sql/lexer.js';

/**
 * Settings whose value names a file to read or write, a schema source, or a URL to fetch. Each is
 * pinned at its default. test/security/hostile/engine-pinning.test.ts compares this list with
 * chdb's own system.settings, so a setting of that kind added by a new chdb fails the test.
 */
export const PINNED_SETTINGS = [
  'format_schema',
  'format_schema_source',
  'format_template_resultset',
  'format_template_row',
  'output_format_schema',
  'input_format_record_errors_file_path',
  'format_avro_schema_registry_url',
  'url_base',
  'rename_files_after_processing',
  'into_outfile_create_parent_directories',
] as const;

/** ClickHouse's code for a changed constant setting (SETTING_CONSTRAINT_VIOLATION). */
export const SETTING_CONSTRAINT_VIOLATION = 452;
/** ClickHouse's code for a missing grant (ACCESS_DENIED). */
export const ACCESS_DENIED = 497;
/** ClickHouse's code for a statement the parser refuses (SYNTAX_ERROR). */
const SYNTAX_ERROR = 62;
/** ClickHouse's code for a write refused in readonly mode (READONLY), as the planner answers INTO OUTFILE. */
const READONLY = 164;

/**
 * Writes the engine's config next to its data directory (rewritten on every open) and returns the
 * connection arguments that load it. The directory is the engine's own, mode 0700.
 */
export function pinnedConnectionArgs(dataDir: string): string[] {
  const own = path.join(dataDir, 'ch-scatter-pinned');
  const empty = path.join(own, 'no-files');
  fs.mkdirSync(empty, { recursive: true, mode: 0o700 });
  fs.chmodSync(own, 0o700);
  for (const f of fs.readdirSync(empty)) fs.rmSync(path.join(empty, f), { recursive: true, force: true });
  const users = path.join(own, 'users.xml');
  const config = path.join(own, 'config.xml');
  const constraints = PINNED_SETTINGS.map((s) => `<${s}><const/></${s}>`).join('');
  fs.writeFileSync(
    users,
    `<clickhouse>
  <profiles><default><constraints>${constraints}</constraints></default></profiles>
  <users><default><password></password><networks><ip>::1</ip><ip>127.0.0.1</ip></networks><profile>default</profile><quota>default</quota>
    <grants><query>GRANT ALL ON *.*</query><query>REVOKE SOURCES ON *.*</query></grants>
  </default></users>
  <quotas><default></default></quotas>
</clickhouse>
`,
    { mode: 0o600 },
  );
  fs.writeFileSync(
    config,
    `<clickhouse>
  <user_files_path>${empty}/</user_files_path>
  <format_schema_path>${empty}/</format_schema_path>
  <users_config>${users}</users_config>
</clickhouse>
`,
    { mode: 0o600 },
  );
  return [`--config-file=${config}`];
}

/**
 * The probes run once when the engine opens: each must be refused with its code, or the engine is
 * not served (a chdb that ignored the config would read and write files again, silently).
 */
export const PINNING_PROBES: ReadonlyArray<{ sql: string; code: number }> = [
  { sql: "SELECT 1 SETTINGS format_template_resultset = 'ch-scatter-probe' FORMAT Null", code: SETTING_CONSTRAINT_VIOLATION },
  { sql: "SELECT * FROM file('ch-scatter-probe', 'LineAsString') FORMAT Null", code: ACCESS_DENIED },
];

/**
 * Refuses, with ClickHouse's codes, SQL that assigns a pinned setting at any level, a pinned setting
 * among the settings passed with it, or INTO OUTFILE (a file written on the engine's host).
 */
export function refuseFileReach(sql: string, settings: Record<string, SettingValue> = {}): void {
  // Both need their keyword spelled out (a keyword has no quoted or escaped form): text without it
  // is not lexed at all, which a 250 KB IN list would take ~12 ms a pass.
  const hasSettings = /settings/i.test(sql);
  const hasOutfile = /outfile/i.test(sql);
  let tokens: ReturnType<typeof tokenize> = [];
  let assigned: string[] = [];
  try {
    if (hasSettings) assigned = assignedSettings(sql, PINNED_SETTINGS);
    if (hasOutfile) tokens = tokenize(sql);
  } catch (e) {
    // Text the lexer cannot read cannot be checked: refused, never guessed at.
    throw new ClickHouseError(`the embedded engine cannot check this statement: ${(e as Error).message}`, 'server', SYNTAX_ERROR);
  }
  refusePinnedSettings(settings, assigned);
  for (let i = 0; i + 1 < tokens.length; i++) {
    if (tokens[i]!.type === 'ident' && tokens[i]!.upper === 'INTO' && tokens[i + 1]!.type === 'ident' && tokens[i + 1]!.upper === 'OUTFILE') {
      throw new ClickHouseError(
        `INTO OUTFILE is not allowed (line ${tokens[i]!.line}, column ${tokens[i]!.column}): the embedded engine writes no file`,
        'server',
        READONLY,
      );
    }
  }
}

/** Refuses settings passed with a statement (or assigned in its text) that include a pinned one. */
export function refusePinnedSettings(settings: Record<string, SettingValue> = {}, assigned: readonly string[] = []): void {
  const pinned = [...assigned, ...Object.keys(settings).filter((k) => (PINNED_SETTINGS as readonly string[]).includes(k))];
  if (pinned.length > 0) {
    throw new ClickHouseError(`Setting ${pinned[0]} should not be changed. (SETTING_CONSTRAINT_VIOLATION)`, 'server', SETTING_CONSTRAINT_VIOLATION);
  }
}
