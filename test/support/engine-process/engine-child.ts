// The child side of an engine process: owns one chdb data directory (chdb allows one per
// process) and answers requests from the parent over IPC. Started by engine-process.ts with
// the directory in argv[2]. Exits when the parent goes away, so no orphan keeps the lock.
import { createEmbeddedAccess } from '../../../shared/adapters/clickhouse/embedded.js';
import { ClickHouseError } from '../../../shared/core/clickhouse/port.js';
import type { EngineReply, EngineRequest, WireError } from './engine-protocol.js';

const send = (m: EngineReply) => {
  if (process.connected) process.send!(m);
};

function wireError(e: unknown): WireError {
  if (e instanceof ClickHouseError) return { message: e.message, kind: e.kind, chCode: e.chCode };
  return { message: e instanceof Error ? e.message : String(e), kind: 'server' };
}

async function main(): Promise<void> {
  const dir = process.argv[2];
  if (!dir) throw new Error('engine-child: data directory argument missing');
  const access = await createEmbeddedAccess({ path: dir });
  const aborts = new Map<number, AbortController>();

  process.on('disconnect', () => {
    void access.close().finally(() => process.exit(0));
  });

  process.on('message', (raw: EngineRequest) => {
    const m = raw;
    const reply = (p: Promise<unknown>) => {
      p.then(
        (value) => send({ id: m.id, ok: true, value: value ?? null }),
        (e: unknown) => send({ id: m.id, ok: false, error: wireError(e) }),
      ).finally(() => aborts.delete(m.id));
    };
    switch (m.op) {
      case 'query': {
        const ac = new AbortController();
        aborts.set(m.id, ac);
        reply(access.query(m.sql, { ...m.opts, signal: ac.signal }));
        break;
      }
      case 'queryRaw': {
        const ac = new AbortController();
        aborts.set(m.id, ac);
        // Buffers cross the IPC channel as plain Uint8Arrays: make them Buffers again.
        const tables = m.opts.tables?.map((t) => ({ ...t, data: Buffer.from(t.data) }));
        reply(access.queryRaw(m.sql, { ...m.opts, ...(tables ? { tables } : {}), signal: ac.signal }));
        break;
      }
      case 'exec': {
        const ac = new AbortController();
        aborts.set(m.id, ac);
        reply(access.exec(m.sql, { ...m.opts, signal: ac.signal }));
        break;
      }
      case 'insert': {
        const ac = new AbortController();
        aborts.set(m.id, ac);
        reply(access.insert(m.table, m.rows, { ...m.opts, signal: ac.signal }));
        break;
      }
      case 'cancel':
        reply(access.cancel(m.queryId));
        break;
      case 'ping':
        reply(access.ping());
        break;
      case 'abort':
        aborts.get(m.target)?.abort();
        break;
      case 'close':
        reply(
          access.close().then(() => {
            setImmediate(() => process.exit(0));
          }),
        );
        break;
    }
  });
  send({ ready: true, pid: process.pid });
}

main().catch((e: unknown) => {
  send({ fatal: e instanceof Error ? e.message : String(e) });
  setImmediate(() => process.exit(1));
});
