// `ch-scatter check`: the Distributed parity check (docs/parity.md#the-check). Compares the
// topology with the cluster's system.clusters and the Distributed table's DDL; prints every
// difference and exits 1 when there is one. Warnings (shard order hints) never fail it.
import { loadTopology } from '../../shared/core/config/load.js';
import { createHttpAccess } from '../../shared/adapters/clickhouse/http.js';
import { checkParity } from '../../shared/core/sharding/parity.js';
import { flagString, parseArgs, type FlagSpec } from '../args.js';

export const summary = 'the Distributed parity check: shard count, weights and sharding expression vs the cluster; exit 1 on any difference';
export const usage = 'check --config FILE [--endpoint URL] [--table DISTRIBUTED_TABLE]';
export const flags: FlagSpec = { config: 'string', endpoint: 'string', table: 'string' };

export async function run(args: string[]): Promise<number> {
  const p = parseArgs(args, flags, usage);
  const config = flagString(p, 'config');
  if (!config) {
    console.error(`usage: ch-scatter ${usage}`);
    return 2;
  }
  const topo = loadTopology(config);
  // The endpoint defaults to the first replica of shard 0 (docs/parity.md#the-check).
  const endpoint = flagString(p, 'endpoint') ?? topo.distributedCheck?.endpoint ?? topo.shards[0]!.replicas[0]!.url;
  if (!endpoint) {
    console.error(
      'no endpoint to check against: shard 0 replica 0 is embedded; set distributedCheck.endpoint (or --endpoint) to a ClickHouse server holding the Distributed table',
    );
    return 1;
  }
  const table = flagString(p, 'table');
  const credentials = process.env.CLICKHOUSE_USER ? { username: process.env.CLICKHOUSE_USER, password: process.env.CLICKHOUSE_PASSWORD ?? '' } : {};
  const access = createHttpAccess({ url: endpoint, ...credentials });
  try {
    const report = await checkParity(topo, access, { table });
    for (const w of report.warnings) console.error(`warning: ${w}`);
    const what = `cluster "${topo.cluster}"${(table ?? topo.distributedCheck?.table) ? `, table ${table ?? topo.distributedCheck?.table}` : ''} on ${access.describe}`;
    if (report.ok) {
      console.log(`parity OK: ${what} (${topo.shards.length} shards, weights ${topo.shards.map((s) => s.weight).join(',')})`);
      return 0;
    }
    console.error(`parity FAILED: ${what}: ${report.problems.length} difference(s)`);
    for (const prob of report.problems) console.error(`  ${prob}`);
    return 1;
  } finally {
    await access.close().catch(() => undefined);
  }
}
