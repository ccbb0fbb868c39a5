// A typo in a user's SQL is the query's error, not an outage: in the `ch-scatter dev` terminal (the
// coordinator and the shard processes, at INFO, with the coordinator's EMF metrics turned on) it is
// logged once by the coordinator, at INFO, with the query id, and counted as QueryError, never as a
// ShardFailure. A shard that really fails (an injected fault) stays a WARN and a ShardFailure.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { parseTopology } from '../../shared/core/config/load.js';
import { createPlacement } from '../../shared/core/sharding/index.js';
import { post, spawnDev, tempDir, type DevProcess } from './support.js';

interface Line {
  level?: string;
  message?: string;
  service?: string;
  queryId?: string;
  shard?: number;
  status?: number | string;
  error?: string;
  clickhouse?: { code: number; name: string };
  reason?: string;
  _aws?: { CloudWatchMetrics: { Metrics: { Name: string }[] }[] };
}

const dir = tempDir('query-error-logs');
const config = {
  cluster: 'dev',
  // Shard 2 fails every request; the queries below that must not reach it are pruned to shards 0 and 1.
  shards: [{ replicas: [{ embedded: 'a' }] }, { replicas: [{ embedded: 'b' }] }, { replicas: [{ embedded: 'c', fault: { error: 'injected' } }] }],
  tables: { 'analytics.t_dist': { local: 'analytics.t', shardingKey: { column: 'sensor', type: 'String' } } },
};
let dev: DevProcess;
let url: string;
let healthy: string; // an IN list with a sensor on shard 0 and one on shard 1

beforeAll(async () => {
  fs.writeFileSync(path.join(dir, 'topology.json'), JSON.stringify(config));
  dev = spawnDev(['--config', path.join(dir, 'topology.json'), '--port', '0'], { CH_SCATTER_LOG_LEVEL: 'INFO', POWERTOOLS_METRICS_DISABLED: 'false' });
  url = await dev.ready;
  for (const sql of [
    'CREATE DATABASE IF NOT EXISTS analytics',
    'CREATE TABLE analytics.t (sensor String, site String, value Float64) ENGINE = MergeTree ORDER BY sensor',
    "INSERT INTO analytics.t SELECT concat('s-', toString(number % 50)), ['ams', 'fra'][number % 2 + 1], number FROM numbers(1000)",
  ]) {
    const r = await post(`${url}/admin/exec`, { sql });
    expect(r.body.replicas.map((x: { ok: boolean }) => x.ok)).toEqual([true, true, false]);
  }
  const topo = parseTopology({
    ...config,
    shards: config.shards.map((s) => ({ replicas: s.replicas.map(({ embedded }) => ({ embedded: path.join(dir, embedded) })) })),
  });
  const placement = await createPlacement(topo.shards, topo.tables['analytics.t_dist']!.shardingKey);
  const sensors = Array.from({ length: 50 }, (_, i) => `s-${i}`);
  healthy = [0, 1].map((shard) => `'${sensors.find((s) => placement.shardOf(s) === shard)}'`).join(', ');
});

afterAll(async () => {
  await dev?.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** Everything the dev terminal printed for one request: its log lines and its EMF metric names (with dimensions). */
async function printedFor(send: () => Promise<unknown>): Promise<{ logs: Line[]; metrics: string[] }> {
  const out0 = dev.stdout().length;
  const err0 = dev.stderr().length;
  await send();
  // The coordinator's last word on a request is the flush of its per-invocation metrics (Request).
  await vi.waitFor(() => expect(dev.stdout().slice(out0)).toMatch(/"Request":1/));
  const lines = (dev.stdout().slice(out0) + dev.stderr().slice(err0))
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Line);
  const metrics = lines.flatMap((l) =>
    (l._aws?.CloudWatchMetrics ?? []).flatMap((m) => m.Metrics.map((x) => (l.reason ? `${x.Name}{reason=${l.reason}}` : x.Name))),
  );
  return { logs: lines.filter((l) => l.level), metrics };
}

async function query(sql: string, queryId: string) {
  const res = await fetch(`${url}/query`, { method: 'POST', headers: { 'x-query-id': queryId }, body: JSON.stringify({ sql }) });
  return { status: res.status, body: (await res.json()) as Record<string, any> };
}

describe('the dev terminal', () => {
  for (const [what, sql, code, name] of [
    ['an unknown column', 'SELECT sitee, count() AS c FROM analytics.t_dist WHERE sensor IN ({in}) GROUP BY sitee', 47, 'UNKNOWN_IDENTIFIER'],
    ['an illegal argument type', 'SELECT sum(site) AS s FROM analytics.t_dist WHERE sensor IN ({in})', 43, 'ILLEGAL_TYPE_OF_ARGUMENT'],
  ] as const) {
    it(`${what}: one coordinator line at INFO with the query id, QueryError, no shard failure`, async () => {
      const queryId = `typo-${code}`;
      let answer: Awaited<ReturnType<typeof query>> | undefined;
      const { logs, metrics } = await printedFor(async () => (answer = await query(sql.replace('{in}', healthy), queryId)));
      expect(answer!.status).toBe(400);
      expect(answer!.body.error.code).toBe('QUERY_ERROR');
      expect(logs.filter((l) => l.level !== 'INFO')).toEqual([]);
      const coordinator = logs.filter((l) => l.service === 'ch-scatter-coordinator');
      expect(coordinator.map((l) => [l.level, l.message, l.queryId, l.status, l.error, l.clickhouse])).toEqual([
        ['INFO', 'query done', queryId, 400, 'QUERY_ERROR', { code, name }],
      ]);
      const shards = logs.filter((l) => l.service === 'ch-scatter-shard');
      expect(shards.map((l) => [l.message, l.queryId]).sort()).toEqual([
        ['shard request answered: query error', queryId],
        ['shard request answered: query error', queryId],
      ]);
      expect(metrics.filter((m) => m === 'ShardLatency')).toHaveLength(2);
      expect(metrics).toContain('QueryError');
      expect(metrics).toContain('Query');
      expect(metrics.filter((m) => m.startsWith('ShardFailure'))).toEqual([]);
    });
  }

  it('the same typo through the ClickHouse interface: its one line carries the code; no shard failure', async () => {
    let status = 0;
    const { logs, metrics } = await printedFor(async () => {
      const res = await fetch(`${url}/`, {
        method: 'POST',
        headers: { 'x-query-id': 'ch-typo' },
        body: `SELECT sitee FROM analytics.t_dist WHERE sensor IN (${healthy})`,
      });
      status = res.status;
      await res.text();
    });
    expect(status).toBe(404); // ClickHouse's status for 47
    expect(logs.filter((l) => l.level !== 'INFO')).toEqual([]);
    const coordinator = logs.filter((l) => l.service === 'ch-scatter-coordinator');
    expect(coordinator.map((l) => [l.message, l.queryId, (l as { exceptionCode?: string }).exceptionCode])).toEqual([['clickhouse done', 'ch-typo', '47']]);
    expect(metrics.filter((m) => m.startsWith('ShardFailure'))).toEqual([]);
  });

  it('a shard that really fails: WARN naming it, ShardFailure and PartialResults, no QueryError', async () => {
    let answer: Awaited<ReturnType<typeof query>> | undefined;
    const { logs, metrics } = await printedFor(async () => (answer = await query('SELECT count() AS c FROM analytics.t_dist', 'outage')));
    expect(answer!.status).toBe(200);
    expect(answer!.body.partial).toBe(true);
    const warned = logs.filter((l) => l.level === 'WARN');
    expect(warned.map((l) => [l.service, l.message, l.queryId, l.shard, l.status])).toEqual([
      ['ch-scatter-coordinator', 'shard missing', 'outage', 2, 'error'],
    ]);
    expect(metrics).toContain('ShardFailure{reason=error}');
    expect(metrics).toContain('PartialResults');
    expect(metrics).not.toContain('QueryError');
  });
});
