// The configured tables' total_rows and total_bytes summed over every shard, for the catalog's
// system.tables (a distributed table holds what its shards hold). One read of each shard's own
// system.tables through the fan-out primitive; a shard that does not answer makes the sums unknown
// (NULL, as ClickHouse says for a size it cannot tell), never a sum over some shards shown as the total.
import type { Topology } from '../config/schema.js';
import { qualifyTable } from '../config/schema.js';
import { quoteStringLiteral } from '../sql/quote.js';
import { openFanOut } from '../scatter/shard-fanout.js';
import { createLimiter } from '../scatter/fanout.js';
import type { HedgeState } from '../scatter/hedge.js';
import type { ShardInvoker } from '../scatter/invoker.js';

/** `localDb.localTable` -> the sums over every shard, or undefined when some shard did not say. */
export type TableSizes = Map<string, { rows?: bigint; bytes?: bigint }>;

export interface TableSizeDeps {
  topo: Topology;
  invoker: ShardInvoker;
  hedgeState: HedgeState;
  queryId: string;
  now?: () => number;
}

export async function shardTableSizes(deps: TableSizeDeps, deadlineAt: number): Promise<TableSizes | undefined> {
  const { topo } = deps;
  const now = deps.now ?? Date.now;
  const locals = [...new Set(Object.values(topo.tables).map((t) => qualifyTable(t.local)))];
  const pairs = locals.map((l) => {
    const i = l.indexOf('.');
    return `(${quoteStringLiteral(l.slice(0, i))}, ${quoteStringLiteral(l.slice(i + 1))})`;
  });
  const sql = `SELECT database, name, total_rows, total_bytes FROM system.tables WHERE (database, name) IN (${pairs.join(', ')})`;
  const fan = openFanOut({
    invoker: deps.invoker,
    limiter: createLimiter(topo.query.maxConcurrency),
    deadlineAt,
    now,
    hedge: { ...topo.query.hedge, enabled: false },
    state: deps.hedgeState,
  });
  const perShard: string[] = [];
  try {
    const outcomes = await Promise.all(
      topo.shards.map((s, shard) =>
        fan.ask(
          shard,
          {
            replicaCount: s.replicas.length,
            request: (replica, attempt) => ({
              type: 'query',
              queryId: deps.queryId,
              shard,
              replica,
              sql,
              deadline: deadlineAt,
              settings: {},
              external: [],
              attempt,
              format: 'JSONEachRow',
            }),
          },
          (o) => {
            if (o.response?.raw !== undefined) perShard[shard] = Buffer.from(o.response.raw, 'base64').toString('utf8');
          },
        ),
      ),
    );
    if (outcomes.some((o) => o.status !== 'ok')) return undefined;
  } finally {
    fan.close();
  }
  const sums: TableSizes = new Map(locals.map((l) => [l, { rows: 0n, bytes: 0n }]));
  for (const text of perShard) {
    const seen = new Set<string>();
    for (const line of (text ?? '').split('\n')) {
      if (!line.trim()) continue;
      const r = JSON.parse(line) as { database: string; name: string; total_rows: string | number | null; total_bytes: string | number | null };
      const key = `${r.database}.${r.name}`;
      const sum = sums.get(key);
      if (!sum) continue;
      seen.add(key);
      sum.rows = r.total_rows === null || sum.rows === undefined ? undefined : sum.rows + BigInt(r.total_rows);
      sum.bytes = r.total_bytes === null || sum.bytes === undefined ? undefined : sum.bytes + BigInt(r.total_bytes);
    }
    // A shard without the table: its size is not known.
    for (const key of sums.keys()) if (!seen.has(key)) sums.set(key, {});
  }
  return sums;
}
