// The corpus on Debian's clickhouse-server 18.16: four servers hold the shards (rows placed by the
// router), a fifth holds every row and Distributed tables over all five (its own local tables are an
// empty fifth shard). Checked here:
// - `needs` is honest both ways: every query without it runs on 18.16, every query with it is refused;
// - 18.16's own Distributed engine answers the corpus as its single node does, through the same
//   harness: the exact marks hold for ClickHouse's two-stage execution, not only for row order.
import { describe, expect, it } from 'vitest';
import { useChServers } from '../support/ch-servers.js';
import { allRowsName18, loadOracle18, oracleLayout } from '../support/oracle-cluster.js';
import { CORPUS } from './corpus.js';
import { describeFailures, http18Runner, runOracle } from './harness.js';

const servers = useChServers({ n: 5, portBase: 19560 });
const on18 = CORPUS.filter((c) => !c.needs?.length);
const notOn18 = CORPUS.filter((c) => c.needs?.length);

describe('the corpus on 18.16', () => {
  it('loads, runs every query not marked `needs`, and is refused every query that is', async () => {
    const { urls, clusterName } = servers.current;
    const layout = await oracleLayout();
    await loadOracle18(layout, urls.slice(0, 4), urls[4]!, clusterName);
    expect(on18.length).toBeGreaterThanOrEqual(150);
    const single = http18Runner(urls[4]!, allRowsName18);
    const failed: string[] = [];
    for (const c of on18) await single(c.sql).catch((e: Error) => failed.push(`${c.id}: ${e.message.slice(0, 200)}`));
    expect(failed).toEqual([]);
    const ran: string[] = [];
    for (const c of notOn18)
      await single(c.sql).then(
        () => ran.push(`${c.id} needs ${c.needs!.join(', ')} but ran`),
        () => undefined,
      );
    expect(ran).toEqual([]);
  }, 60_000);

  it("answers through 18.16's Distributed tables exactly as its single node does", async () => {
    const url = servers.current.urls[4]!;
    // A plain IN over a Distributed subquery is refused by default (distributed_product_mode =
    // 'deny'); 'local' runs it against each shard's own table, which is exact here because events
    // and users share their sharding key: the comparison shows it.
    const distributed = http18Runner(url, undefined, { distributed_product_mode: 'local' });
    const report = await runOracle(
      on18.filter((c) => !c.notDistributed18),
      distributed,
      http18Runner(url, allRowsName18),
      { concurrency: 4 },
    );
    expect(describeFailures(report)).toBe('');
    expect(report.outcomes.length).toBeGreaterThanOrEqual(150);
  }, 60_000);
});
