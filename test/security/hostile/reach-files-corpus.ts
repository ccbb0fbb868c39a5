// The file-naming cases of the reach corpus: a secret file and target paths on the shards' host,
// named through every route (the ClickHouse interface's URL, header, FORMAT and SETTINGS at any
// depth; the JSON API's settings and SETTINGS clauses on each path). Shared by the chdb run
// (reach-files.test.ts) and the 18.16 run (reach-18.test.ts).
import fs from 'node:fs';
import { FILE_FORMATS } from '../../../shared/core/clickhouse/file-names.js';
import { DIST } from './reach-corpus.js';
import type { ReachStack } from './reach-stack.js';

export interface FileCase {
  name: string;
  /** The ClickHouse interface (URL parameters, headers, body) or the JSON API (body). */
  ch?: { query?: Record<string, string>; headers?: Record<string, string>; body: string };
  json?: { path: '/query' | '/explain'; body: unknown };
  writes?: string;
}

/** The cases for one secret file; `target()` gives a fresh path that must never come to exist. */
export function fileCases(secret: string, target: () => string): FileCase[] {
  const out: FileCase[] = [];
  const reads = [`SELECT 1 AS x`, `SELECT count() AS x FROM ${DIST}`];
  for (const sql of reads) {
    const where = sql.includes(DIST) ? 'general path' : 'catalog engine';
    for (const setting of ['format_template_resultset', 'format_template_row']) {
      out.push({ name: `${where}: URL ${setting} + FORMAT Template`, ch: { query: { [setting]: secret }, body: `${sql} FORMAT Template` } });
      out.push({ name: `${where}: SETTINGS ${setting} + FORMAT Template`, ch: { body: `${sql} SETTINGS ${setting} = '${secret}' FORMAT Template` } });
      out.push({ name: `${where}: URL ${setting} + default_format`, ch: { query: { [setting]: secret, default_format: 'Template' }, body: sql } });
      out.push({
        name: `${where}: URL ${setting} + X-ClickHouse-Format`,
        ch: { query: { [setting]: secret }, headers: { 'x-clickhouse-format': 'Template' }, body: sql },
      });
    }
    for (const setting of ['output_format_schema', 'format_schema']) {
      const t = target();
      out.push({ name: `${where}: URL ${setting} + FORMAT Protobuf`, ch: { query: { [setting]: `${t}:M` }, body: `${sql} FORMAT Protobuf` }, writes: t });
      const t2 = target();
      out.push({ name: `${where}: SETTINGS ${setting} + FORMAT Protobuf`, ch: { body: `${sql} SETTINGS ${setting} = '${t2}:M' FORMAT Protobuf` }, writes: t2 });
    }
    for (const f of FILE_FORMATS) out.push({ name: `${where}: FORMAT ${f} alone`, ch: { body: `${sql} FORMAT ${f}` } });
    out.push({ name: `${where}: a subquery's SETTINGS`, ch: { body: `SELECT * FROM (${sql} SETTINGS format_template_row = '${secret}') FORMAT TSV` } });
  }
  for (const p of ['/query', '/explain'] as const) {
    const t = target();
    for (const path of ['general', 'fast', 'auto']) {
      out.push({
        name: `json ${p} ${path}: settings format_template_row`,
        json: { path: p, body: { sql: reads[1], settings: { format_template_row: secret, ch_scatter_path: path } } },
      });
      out.push({
        name: `json ${p} ${path}: settings output_format_schema`,
        json: { path: p, body: { sql: reads[1], settings: { output_format_schema: `${t}:M`, ch_scatter_path: path } } },
        writes: t,
      });
      out.push({
        name: `json ${p} ${path}: SETTINGS clause`,
        json: { path: p, body: { sql: `${reads[1]} SETTINGS format_template_resultset = '${secret}'`, settings: { ch_scatter_path: path } } },
      });
      out.push({
        name: `json ${p} ${path}: in a subquery`,
        json: { path: p, body: { sql: `SELECT * FROM (${reads[1]} SETTINGS format_schema = '${secret}')`, settings: { ch_scatter_path: path } } },
      });
    }
  }
  return out;
}

/** Every case through its route; the problems found (none when each is a 4xx with 497 / UNSUPPORTED, nothing read, written or sent). */
export async function runFileCases(s: ReachStack, all: FileCase[], secretText: string): Promise<string[]> {
  const problems: string[] = [];
  for (const c of all) {
    const before = s.payloads.length;
    let status: number;
    let text: string;
    let code: string | null | undefined;
    if (c.ch) {
      const u = new URL(`${s.stack.url}/`);
      for (const [k, v] of Object.entries(c.ch.query ?? {})) u.searchParams.set(k, v);
      const r = await fetch(u, { method: 'POST', headers: c.ch.headers ?? {}, body: c.ch.body });
      [status, text, code] = [r.status, await r.text(), r.headers.get('x-clickhouse-exception-code')];
      if (code !== '497') problems.push(`${c.name}: code ${code}, want 497`);
    } else {
      const r = await fetch(`${s.stack.url}${c.json!.path}`, { method: 'POST', body: JSON.stringify(c.json!.body) });
      [status, text] = [r.status, await r.text()];
      code = (JSON.parse(text) as { error?: { code?: string } }).error?.code;
      if (code !== 'UNSUPPORTED') problems.push(`${c.name}: code ${code}, want UNSUPPORTED`);
    }
    if (status < 400 || status >= 500) problems.push(`${c.name}: status ${status}`);
    if (text.includes(secretText)) problems.push(`${c.name}: the file's content came back`);
    if (c.writes && fs.existsSync(c.writes)) problems.push(`${c.name}: ${c.writes} was written`);
    if (s.payloads.length !== before) problems.push(`${c.name}: ${s.payloads.length - before} shard request(s) sent`);
  }
  return problems;
}
