// A chdb engine in its own process that returns ClickHouse's FORMAT JSON body as ClickHouse writes
// it: meta, data, and `totals` for WITH TOTALS (the oracle's reference needs them; the
// ClickHouseAccess port keeps only meta and rows). chdb allows one data directory per process, so
// the test process never opens one itself.
import { forkModule, siblingModule } from '../../../local/fork-module.js';

export interface JsonBody {
  meta: Array<{ name: string; type: string }>;
  data: Record<string, unknown>[];
  totals?: Record<string, unknown>;
  extremes?: { min: Record<string, unknown>; max: Record<string, unknown> };
  rows: number;
}

export interface JsonEngine {
  /** Run a statement (DDL, INSERT ... FORMAT TabSeparated with inline data). */
  exec(sql: string): Promise<void>;
  /** Run a SELECT with FORMAT JSON; the parsed body. */
  json(sql: string): Promise<JsonBody>;
  /** SET these for every later query of the session (a SETTINGS clause after a UNION would bind to its last SELECT only). */
  set(settings: Record<string, string | number>): Promise<void>;
  close(): Promise<void>;
}

type Reply = { ready: true } | { id: number; ok: true; text: string } | { id: number; ok: false; error: string };

export async function spawnJsonEngine(dir: string): Promise<JsonEngine> {
  const child = forkModule(siblingModule(import.meta.url, 'child'), [dir]);
  const pending = new Map<number, { resolve: (t: string) => void; reject: (e: Error) => void }>();
  let next = 1;
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`json engine for ${dir} did not start within 30 s`)), 30_000);
    child.once('exit', (code) => reject(new Error(`json engine for ${dir} exited during start (code ${code})`)));
    child.on('message', function ready(m: Reply) {
      if ('ready' in m) {
        clearTimeout(timer);
        child.off('message', ready);
        resolve();
      }
    });
  });
  child.on('message', (m: Reply) => {
    if (!('id' in m)) return;
    const p = pending.get(m.id);
    pending.delete(m.id);
    if (m.ok) p?.resolve(m.text);
    else p?.reject(new Error(m.error));
  });
  child.once('exit', () => {
    for (const p of pending.values()) p.reject(new Error(`json engine for ${dir} exited`));
    pending.clear();
  });
  const run = (sql: string) =>
    new Promise<string>((resolve, reject) => {
      const id = next++;
      pending.set(id, { resolve, reject });
      child.send({ id, sql });
    });
  return {
    exec: async (sql) => {
      await run(sql);
    },
    json: async (sql) => parseJsonBody(await run(`${sql.replace(/[\s;]+$/, '')}\nFORMAT JSON`)),
    set: async (settings) => {
      for (const [k, v] of Object.entries(settings)) await run(`SET ${k} = ${typeof v === 'number' ? v : `'${v}'`}`);
    },
    close: async () => {
      if (child.exitCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      child.disconnect();
      const t = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(t);
    },
  };
}

/**
 * chdb 3.4 (ClickHouse 26.7) writes an EMPTY result WITH TOTALS out of order: the totals block and the
 * data array's end first, then the document from its start with a lone comma for the data (measured:
 * `"\n\t],\n\n\t\"totals\": {...}{\n\t\"meta\": ..., \"data\": [\n,\n\n\t\"rows\": 0, ...}`).
 * A ClickHouse server (18.16 checked) writes `"data": [], "totals": {...}`. Put the pieces back.
 */
export function parseJsonBody(text: string): JsonBody {
  try {
    return JSON.parse(text) as JsonBody;
  } catch (e) {
    const m = /^\s*\],\s*"totals":\s*(\{[\s\S]*?\})(\{\s*"meta"[\s\S]*)$/.exec(text);
    if (!m) throw e;
    const body = JSON.parse(m[2]!.replace(/"data":\s*\[\s*,/, '"data": [],')) as JsonBody;
    return { ...body, totals: JSON.parse(m[1]!) as Record<string, unknown> };
  }
}
