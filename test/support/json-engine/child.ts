// The child side of a JSON engine (json-engine.ts): one chdb session on the directory in argv[2],
// answering { id, sql } with the engine's whole output text (FORMAT JSON keeps `totals` and
// `extremes`, which the ClickHouseAccess port does not carry). One query at a time, in order.
import { Session } from 'chdb';

interface Request {
  id: number;
  sql: string;
}

const send = (m: unknown) => {
  if (process.connected) process.send!(m);
};

const dir = process.argv[2];
if (!dir) throw new Error('json-engine child: data directory argument missing');
const session = new Session(dir);
let chain: Promise<unknown> = Promise.resolve();

process.on('message', (m: Request) => {
  chain = chain.then(async () => {
    try {
      const res = await session.queryAsync(m.sql);
      send({ id: m.id, ok: true, text: res.text() });
    } catch (e) {
      // A failed query can leave its output behind for the next one (chdb 3.4): flush it here.
      await session.queryAsync('SELECT 1 FORMAT Null').catch(() => undefined);
      send({ id: m.id, ok: false, error: e instanceof Error ? e.message : String(e) });
    }
  });
});
process.on('disconnect', () => {
  void chain.finally(() => {
    session.close();
    process.exit(0);
  });
});
send({ ready: true });
