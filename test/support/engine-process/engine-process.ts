// One embedded ClickHouse engine in its own child process, spoken to over IPC.
// Why a process: chdb allows ONE data directory per process, so a local cluster of N shards
// (plus an oracle) needs N+1 processes. The returned object is a ClickHouseAccess like any
// other; many calls may be in flight at once (the child queues them for its engine).
// If the child dies, every pending call rejects with ClickHouseError kind 'connection'.
import type { ChildProcess } from 'node:child_process';
import { ClickHouseError } from '../../../shared/core/clickhouse/port.js';
import type { ClickHouseAccess, QueryOptions, QueryResult, RawResult, StageTable } from '../../../shared/core/clickhouse/port.js';
import { forkModule, siblingModule } from '../../../local/fork-module.js';
import type { EngineReply, EngineRequest, WireQueryOptions } from './engine-protocol.js';

export interface SpawnEngineOptions {
  /** The engine's data directory (created if missing). */
  path: string;
  /** How long to wait for the child to load chdb and open the directory. */
  startTimeoutMs?: number;
}

export type EngineProcess = ClickHouseAccess & {
  readonly pid: number;
  /** SIGKILL the child (simulates a crash); pending calls reject with kind 'connection'. */
  kill(): void;
  /** Resolves when the child has exited. */
  readonly exited: Promise<number | null>;
};

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;
type Outgoing = DistributiveOmit<EngineRequest, 'id'>;

interface Pending {
  resolve: (v: unknown) => void;
  reject: (e: unknown) => void;
}

export async function spawnEngine(opts: SpawnEngineOptions): Promise<EngineProcess> {
  const child = forkModule(siblingModule(import.meta.url, 'engine-child'), [opts.path]);
  const pending = new Map<number, Pending>();
  let nextId = 1;
  let dead: ClickHouseError | undefined;
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));

  const pid = await waitReady(child, opts.startTimeoutMs ?? 30_000, opts.path);

  child.on('message', (m: EngineReply) => {
    if (!('id' in m)) return;
    const p = pending.get(m.id);
    if (!p) return;
    pending.delete(m.id);
    if (m.ok) p.resolve(m.value);
    else p.reject(new ClickHouseError(m.error.message, m.error.kind, m.error.chCode));
  });
  child.once('exit', (code, signal) => {
    dead = new ClickHouseError(`engine process ${pid} (${opts.path}) exited (${signal ?? `code ${code}`})`, 'connection');
    for (const p of pending.values()) p.reject(dead);
    pending.clear();
  });
  child.on('error', () => undefined); // 'exit' follows and does the cleanup

  const call = <T>(msg: Outgoing, signal?: AbortSignal): Promise<T> =>
    new Promise<T>((resolve, reject) => {
      if (dead) return reject(dead);
      if (signal?.aborted) return reject(new ClickHouseError('query aborted', 'aborted'));
      const id = nextId++;
      const onAbort = () => {
        if (!pending.delete(id)) return;
        reject(new ClickHouseError('query aborted', 'aborted'));
        send({ op: 'abort', target: id, id: nextId++ });
      };
      pending.set(id, {
        resolve: (v) => {
          signal?.removeEventListener('abort', onAbort);
          resolve(v as T);
        },
        reject: (e) => {
          signal?.removeEventListener('abort', onAbort);
          reject(e);
        },
      });
      signal?.addEventListener('abort', onAbort, { once: true });
      send({ ...msg, id } as EngineRequest);
    });

  const send = (m: EngineRequest | (Outgoing & { id: number })) => {
    try {
      if (child.connected) child.send(m);
    } catch {
      // the 'exit' handler rejects whatever is pending
    }
  };

  const wire = (o: QueryOptions | undefined): WireQueryOptions => {
    const { signal: _signal, ...rest } = o ?? {};
    return rest;
  };

  return {
    pid,
    exited,
    describe: `engine-process:${pid}:${opts.path}`,
    query: (sql, o) => call<QueryResult>({ op: 'query', sql, opts: wire(o) }, o?.signal),
    queryRaw: async (sql, o) => {
      const { signal, ...rest } = o;
      // Streamed parts cannot cross the process boundary: read here (a source's error is the query's), sent as data.
      const tables = rest.tables && (await Promise.all(rest.tables.map(withParts)));
      const r = await call<RawResult>({ op: 'queryRaw', sql, opts: { ...rest, ...(tables ? { tables } : {}) } }, signal);
      return { bytes: Buffer.from(r.bytes), statistics: r.statistics };
    },
    exec: async (sql, o) => {
      await call({ op: 'exec', sql, opts: wire(o) }, o?.signal);
    },
    insert: async (table, rows, o) => {
      await call({ op: 'insert', table, rows, opts: wire(o) }, o?.signal);
    },
    cancel: async (queryId) => {
      await call({ op: 'cancel', queryId });
    },
    ping: async () => {
      try {
        return (await call<boolean>({ op: 'ping' })) === true;
      } catch {
        return false;
      }
    },
    kill: () => {
      child.kill('SIGKILL');
    },
    close: async () => {
      if (dead) return;
      await call({ op: 'close' }).catch(() => undefined);
      const t = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(t);
    },
  };
}

function waitReady(child: ChildProcess, timeoutMs: number, dir: string): Promise<number> {
  return new Promise<number>((resolve, reject) => {
    const done = (f: () => void) => {
      clearTimeout(timer);
      child.off('message', onMsg);
      child.off('exit', onExit);
      f();
    };
    const onMsg = (m: EngineReply) => {
      if ('ready' in m) done(() => resolve(m.pid));
      else if ('fatal' in m) done(() => reject(new ClickHouseError(`engine for ${dir} failed to start: ${m.fatal}`, 'connection')));
    };
    const onExit = (code: number | null) => done(() => reject(new ClickHouseError(`engine for ${dir} exited during start (code ${code})`, 'connection')));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      done(() => reject(new ClickHouseError(`engine for ${dir} did not start within ${timeoutMs} ms`, 'connection')));
    }, timeoutMs);
    child.on('message', onMsg);
    child.on('exit', onExit);
  });
}

/** A stage table with its streamed parts read into its data. */
async function withParts(t: StageTable): Promise<StageTable> {
  if (!t.parts) return t;
  const { parts, ...rest } = t;
  const chunks = [t.data];
  for await (const part of parts) chunks.push(part);
  return { ...rest, data: Buffer.concat(chunks) };
}
