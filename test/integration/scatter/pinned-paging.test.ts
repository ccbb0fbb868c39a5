// Pinned paging on chdb: shard 0 has two replicas that differ (the second holds rows the first has
// not received yet), shard 1 one replica. A cursor names the replica each shard's first page read and
// every later page reads the same one while it is healthy: the pages together are exactly that
// replica's rows, none skipped or repeated. When the pinned replica fails, the page reads the other
// and the answer says so (replicaChanged), and the next cursor pins the replica that answered.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createShardHandler } from '../../../functions/shard/shard-function.js';
import { parseTopology } from '../../../shared/core/config/load.js';
import type { Topology } from '../../../shared/core/config/schema.js';
import type { ShardRequest, ShardResponse } from '../../../shared/core/protocol/shard-wire.js';
import { createHedgeState } from '../../../shared/core/scatter/hedge.js';
import type { ShardInvoker } from '../../../shared/core/scatter/invoker.js';
import { PLANNERS } from '../../../shared/core/scatter/planners.js';
import { runQuery, type QueryResponse, type RunDeps } from '../../../shared/core/scatter/run-query.js';
import { createPlacement } from '../../../shared/core/sharding/index.js';
import { startEmbeddedCluster, type EmbeddedCluster } from '../../support/embedded-cluster.js';

process.env.POWERTOOLS_LOG_LEVEL = 'SILENT';
const DIST = 'default.pp_dist';
const LOCAL = 'default.pp';
let cluster: EmbeddedCluster;
let topo: Topology;
/** Per shard, per replica: its engine. */
let engines: EmbeddedCluster['shards'][];
const ids: number[][] = [[], []];
/** Rows only shard 0's second replica holds (written there, not yet on the first). */
const lagging: number[] = [];

beforeAll(async () => {
  cluster = await startEmbeddedCluster({ shards: 3 });
  await cluster.execAll(`CREATE TABLE ${LOCAL} (id UInt64) ENGINE = MergeTree ORDER BY id`);
  topo = parseTopology({
    cluster: 'c',
    shards: [{ replicas: [{ url: 'http://r0:8123' }, { url: 'http://r1:8123' }] }, { replicas: [{ url: 'http://s1:8123' }] }],
    tables: { [DIST]: { local: LOCAL, shardingKey: { column: 'id', type: 'UInt64', function: 'identity' } } },
    query: { hedge: { enabled: false }, timeoutMs: 20_000 },
  });
  engines = [[cluster.shards[0]!, cluster.shards[1]!], [cluster.shards[2]!]];
  const placement = await createPlacement(topo.shards, topo.tables[DIST]!.shardingKey);
  for (let id = 0; id < 60; id++) ids[placement.shardOf(id)]!.push(id);
  for (let id = 1000; lagging.length < 7; id++) if (placement.shardOf(id) === 0) lagging.push(id);
  const values = (xs: number[]) => xs.map((x) => `(${x})`).join(', ');
  await Promise.all([
    engines[0]![0]!.exec(`INSERT INTO ${LOCAL} VALUES ${values(ids[0]!)}`),
    engines[0]![1]!.exec(`INSERT INTO ${LOCAL} VALUES ${values([...ids[0]!, ...lagging])}`),
    engines[1]![0]!.exec(`INSERT INTO ${LOCAL} VALUES ${values(ids[1]!)}`),
  ]);
}, 120_000);
afterAll(async () => {
  await cluster?.stop();
});

function depsFor(
  down: () => { shard: number; replica: number } | undefined,
  slow?: () => { shard: number; replica: number } | undefined,
  hedged = false,
): RunDeps & { sent: ShardRequest[] } {
  const fns = engines.map((reps, shard) => createShardHandler({ shard, getAccess: async (replica) => reps[replica]! }));
  const sent: ShardRequest[] = [];
  const invoker: ShardInvoker = {
    invoke: async (shard, p): Promise<ShardResponse> => {
      sent.push(p);
      const d = down();
      if (d && d.shard === shard && d.replica === p.replica)
        return { ok: false, shard, replica: p.replica, error: { kind: 'unavailable', message: 'replica down for the test' } };
      const w = slow?.();
      if (w && w.shard === shard && w.replica === p.replica) await new Promise((r) => setTimeout(r, 1500));
      return fns[shard]!(p);
    },
  };
  const t = hedged ? { ...topo, query: { ...topo.query, hedge: { enabled: true, afterQuantile: 0.95, maxExtraPercent: 100 } } } : topo;
  return { sent, topo: t, invoker, ...PLANNERS, hedgeState: createHedgeState(), queryId: 'q-pin', behindApiGateway: false };
}

const SQL = `SELECT id FROM ${DIST} ORDER BY id LIMIT 4`;
const shard0Replicas = (sent: ShardRequest[]) => sent.filter((p) => p.type === 'query' && p.shard === 0).map((p) => p.replica);

describe('pinned paging', () => {
  it('every page reads the replica the first page read: together exactly its rows, none skipped or repeated', async () => {
    // The primary replica rotates per query: start at each one, so both pins are seen.
    for (const first of [0, 1]) {
      const deps = depsFor(() => undefined);
      if (first === 1) await runQuery({ sql: `SELECT count() FROM ${DIST}` }, deps); // turn the rotation
      const got: number[] = [];
      let cursor: string | undefined;
      let pages = 0;
      deps.sent.length = 0;
      do {
        const r = await runQuery({ sql: SQL, ...(cursor ? { cursor } : {}) }, deps);
        expect(r.status, JSON.stringify(r.body)).toBe(200);
        const b = r.body as QueryResponse;
        expect(b.replicaChanged).toBeUndefined();
        got.push(...b.data.map((row) => Number(row.id)));
        cursor = b.cursor;
        pages++;
      } while (cursor && pages < 40);
      const read = shard0Replicas(deps.sent);
      expect(new Set(read), `pages read shard 0 from ${read}`).toEqual(new Set([first]));
      const want = [...(first === 0 ? ids[0]! : [...ids[0]!, ...lagging]), ...ids[1]!].sort((a, b) => a - b);
      expect(got).toEqual(want);
    }
  });

  it('when the pinned replica fails, the page reads the other one and says so; the next cursor pins that one', async () => {
    let down: { shard: number; replica: number } | undefined;
    const deps = depsFor(() => down);
    const p1 = (await runQuery({ sql: SQL }, deps)).body as QueryResponse;
    const pinned = shard0Replicas(deps.sent)[0]!;
    down = { shard: 0, replica: pinned };
    deps.sent.length = 0;
    const r2 = await runQuery({ sql: SQL, cursor: p1.cursor }, deps);
    expect(r2.status, JSON.stringify(r2.body)).toBe(200);
    const p2 = r2.body as QueryResponse;
    expect(p2.partial).toBe(false);
    expect(shard0Replicas(deps.sent)).toEqual([pinned, 1 - pinned]);
    expect(p2.replicaChanged).toEqual([
      {
        shard: 0,
        pinned,
        read: 1 - pinned,
        reason: `replica ${pinned} did not answer (unavailable: replica down for the test); rows of this shard may be skipped or repeated between pages (the replicas may hold different rows)`,
      },
    ]);
    // The replica comes back: the next page stays on the one that answered (the cursor now names it).
    down = undefined;
    deps.sent.length = 0;
    const p3 = (await runQuery({ sql: SQL, cursor: p2.cursor }, deps)).body as QueryResponse;
    expect(shard0Replicas(deps.sent)).toEqual([1 - pinned]);
    expect(p3.replicaChanged).toBeUndefined();
  });

  it('a hedge to the other replica that answers first is said too', async () => {
    let slow: { shard: number; replica: number } | undefined;
    const deps = depsFor(
      () => undefined,
      () => slow,
      true,
    );
    const p1 = (await runQuery({ sql: SQL }, deps)).body as QueryResponse;
    const pinned = shard0Replicas(deps.sent)[0]!;
    slow = { shard: 0, replica: pinned };
    const p2 = (await runQuery({ sql: SQL, cursor: p1.cursor }, deps)).body as QueryResponse;
    expect(p2.partial).toBe(false);
    expect(p2.replicaChanged).toEqual([
      {
        shard: 0,
        pinned,
        read: 1 - pinned,
        reason: `a hedge to replica ${1 - pinned} answered first; rows of this shard may be skipped or repeated between pages (the replicas may hold different rows)`,
      },
    ]);
  });

  it('a cursor whose replicas were edited is refused like any altered cursor', async () => {
    const deps = depsFor(() => undefined);
    const p1 = (await runQuery({ sql: SQL }, deps)).body as QueryResponse;
    const [body, tag] = p1.cursor!.split('.');
    const doc = JSON.parse(Buffer.from(body!, 'base64url').toString('utf8'));
    doc.r = [1 - doc.r[0], doc.r[1]];
    const forged = `${Buffer.from(JSON.stringify(doc)).toString('base64url')}.${tag}`;
    const r = await runQuery({ sql: SQL, cursor: forged }, deps);
    expect(r.status).toBe(400);
    expect(JSON.stringify(r.body)).toContain('BAD_CURSOR');
  });
});
