// One ClickHouse engine for the two-stage oracle, either chdb (one Session) or an 18.16 server over
// HTTP (one session_id, so temporary tables live across requests). Leaves are read as raw
// TabSeparatedWithNamesAndTypes bytes (aggregate states are binary); the final stage's tables are
// temporary tables loaded with `INSERT ... FORMAT TabSeparated`, as the runtime loads them.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Session } from 'chdb';
import { chHttp } from '../../../support/ch-servers.js';

export interface JsonAnswer {
  meta: { name: string; type: string }[];
  data: unknown[][];
  totals?: unknown[];
}

export interface StageEngine {
  /** Setup (tables, rows): on a server as its admin; everything else runs as the read-only shard user. */
  exec(sql: string): Promise<void>;
  /** The query's output as FORMAT TabSeparatedWithNamesAndTypes bytes. */
  tsv(sql: string): Promise<Buffer>;
  json(sql: string): Promise<JsonAnswer>;
  /** CREATE TEMPORARY TABLE name (columns) and load the TabSeparated body into it. */
  loadTemp(name: string, columns: { name: string; type: string }[], body: Buffer): Promise<void>;
  close(): Promise<void>;
}

const ddlColumns = (cols: { name: string; type: string }[]) => cols.map((c) => `\`${c.name.replace(/[`\\]/g, '\\$&')}\` ${c.type}`).join(', ');

export function chdbEngine(): StageEngine {
  const dir = mkdtempSync(join(tmpdir(), 'two-stage-'));
  const session = new Session(join(dir, 'db'));
  let n = 0;
  return {
    async exec(sql) {
      session.query(sql, 'CSV');
    },
    async tsv(sql) {
      const r = await session.queryAsync(sql, { format: 'TabSeparatedWithNamesAndTypes' });
      return Buffer.from(r.bytes());
    },
    async json(sql) {
      return JSON.parse(session.query(sql, 'JSONCompact')) as JsonAnswer;
    },
    async loadTemp(name, columns, body) {
      session.query(`DROP TEMPORARY TABLE IF EXISTS ${name}`, 'CSV');
      session.query(`CREATE TEMPORARY TABLE ${name} (${ddlColumns(columns)})`, 'CSV');
      if (body.length === 0) return;
      const file = join(dir, `body-${n++}.tsv`);
      writeFileSync(file, body);
      session.query(`INSERT INTO ${name} FROM INFILE '${file}' FORMAT TabSeparated`, 'CSV');
    },
    async close() {
      session.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export function httpEngine(url: string): StageEngine {
  // On 18.16 the read-only shard user's `DROP TEMPORARY TABLE IF EXISTS` of a missing table is refused
  // (164): a name loaded again (the next query's tables) starts a new session instead, and the old
  // one times out with its tables.
  let sessions = 0;
  let sessionId = '';
  let loaded = new Set<string>();
  const newSession = () => {
    sessionId = `two-stage-${process.pid}-${Date.now()}-${sessions++}`;
    loaded = new Set();
  };
  newSession();
  const post = async (query: string | undefined, body: string | Buffer): Promise<Buffer> => {
    const qs = new URLSearchParams({ session_id: sessionId });
    if (query !== undefined) qs.set('query', query);
    const res = await fetch(`${url}/?${qs}`, { method: 'POST', body });
    const bytes = Buffer.from(await res.arrayBuffer());
    if (!res.ok) throw new Error(`ClickHouse ${url}: ${bytes.toString().trim().slice(0, 500)}`);
    return bytes;
  };
  return {
    async exec(sql) {
      await chHttp(url, sql);
    },
    async tsv(sql) {
      return post(undefined, `${sql} FORMAT TabSeparatedWithNamesAndTypes`);
    },
    async json(sql) {
      return JSON.parse((await post(undefined, `${sql} FORMAT JSONCompact`)).toString()) as JsonAnswer;
    },
    async loadTemp(name, columns, body) {
      if (loaded.has(name)) newSession();
      loaded.add(name);
      await post(undefined, `CREATE TEMPORARY TABLE ${name} (${ddlColumns(columns)})`);
      if (body.length) await post(`INSERT INTO ${name} FORMAT TabSeparated`, body);
    },
    async close() {},
  };
}
