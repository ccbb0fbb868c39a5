// The reach corpus on two clickhouse-server 18.16 shards (a local stack whose replicas are the
// servers): every forbidden read at every position, on every route, is refused before any shard
// function is asked, and the unconfigured table's row never comes back; a subquery over the
// configured table still runs in the final stage there.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useChServers } from '../../support/ch-servers.js';
import { DIST, LOCAL, reachCases } from './reach-corpus.js';
import { runCorpus, startReachStack, type ReachStack } from './reach-stack.js';

const servers = useChServers({ n: 2, portBase: 19600 });
const ROWS_PER_SHARD = 40;
let s: ReachStack;

beforeAll(async () => {
  s = await startReachStack(
    servers.current.urls.map((url) => ({ replicas: [{ url }] })),
    undefined,
    `INSERT INTO ${LOCAL} SELECT concat('s-', toString(number)), concat('site-', toString(number % 3)), number FROM numbers(${ROWS_PER_SHARD})`,
  );
}, 180_000);

afterAll(async () => {
  await s?.stack.stop();
});

describe('reach corpus on 18.16', () => {
  it('every forbidden read at every position on every route is refused before any shard is asked', async () => {
    const cases = reachCases();
    const problems = await runCorpus(s, cases);
    expect(problems.slice(0, 20), `${problems.length} of ${cases.length} cases`).toEqual([]);
  }, 600_000);

  it('a subquery over the configured table keeps working in the final stage', async () => {
    const sql = `SELECT count() AS c, (SELECT count() FROM ${DIST}) AS t FROM ${DIST}`;
    const before = s.payloads.length;
    const ch = await fetch(`${s.stack.url}/`, { method: 'POST', body: `${sql} FORMAT TSV` });
    expect(await ch.text()).toBe(`${2 * ROWS_PER_SHARD}\t${2 * ROWS_PER_SHARD}\n`);
    // The recorder sees the shards' requests: the corpus's zero is a measurement, not a blind spot.
    expect(s.payloads.length).toBeGreaterThan(before);
  });
});
