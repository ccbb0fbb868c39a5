// The coordinator holds no database credentials: its parity guard and its scheduled inserts reach
// ClickHouse only through the shard functions. Two real 18.16 servers, the AWS shard wiring
// (envShardDeps from CH_SCATTER_SHARD / CH_SCATTER_WRITABLE_TABLES) behind the local Invoke
// endpoint, and the coordinator's real loadDefaultDeps pointed at it with the real Lambda SDK.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { httpEvent } from '../support/http-event.js';
import type { Context } from 'aws-lambda';
import { parseTopology } from '../../shared/core/config/load.js';
import type { Topology } from '../../shared/core/config/schema.js';
import { startInvokeServer, type InvokeServer } from '../../local/invoke-server.js';
import { createShardHandler, envShardDeps } from '../../functions/shard/handler.js';
import { createCoordinatorHandler, createTools } from '../../functions/coordinator/handler.js';
import { loadDefaultDeps, parityTarget } from '../../functions/coordinator/deps.js';
import { mockClient } from 'aws-sdk-client-mock';
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { ADMIN, chHttp, chRows, useChServers } from '../support/ch-servers.js';

process.env.POWERTOOLS_LOG_LEVEL = 'SILENT';
process.env.POWERTOOLS_METRICS_DISABLED = 'true';
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';

const servers = useChServers({ n: 2, portBase: 19800 });
const ROWS = 100;
let invoke: InvokeServer;
const shardFns: Array<(e: unknown) => Promise<any>> = [];
/** What reached the shard functions through the Invoke endpoint: "<shard> <type> <table or sql head>". */
const seen: string[] = [];

function topology(over: { weights?: number[]; endpoint?: string } = {}): Topology {
  const urls = servers.current.urls;
  return parseTopology({
    cluster: 'scatter',
    shards: urls.map((url, i) => ({ weight: over.weights?.[i] ?? 1, replicas: [{ url }] })),
    tables: {
      'default.ev_dist': { local: 'default.ev', shardingKey: { column: 'id', type: 'UInt64', function: 'identity' } },
      'default.roll_dist': { local: 'default.roll', shardingKey: { column: 'id', type: 'UInt64', function: 'identity' } },
    },
    distributedCheck: { table: 'default.ev_dist', ...(over.endpoint ? { endpoint: over.endpoint } : {}) },
    schedules: [
      { name: 'roll', schedule: 'rate(1 hour)', sql: 'SELECT id, count() AS c FROM default.ev_dist GROUP BY id', destination: { table: 'default.roll_dist' } },
    ],
  });
}

const secrets = mockClient(SecretsManagerClient);
secrets.on(GetSecretValueCommand).resolves({ SecretString: JSON.stringify(ADMIN) });

beforeAll(async () => {
  const urls = servers.current.urls;
  for (const [i, url] of urls.entries()) {
    await chHttp(url, 'CREATE TABLE default.ev (id UInt64, n Int32) ENGINE = MergeTree() ORDER BY id');
    await chHttp(url, 'CREATE TABLE default.ev_dist AS default.ev ENGINE = Distributed(scatter, default, ev, id)');
    await chHttp(url, 'CREATE TABLE default.roll (id UInt64, c UInt64, _run_time DateTime, _partial UInt8) ENGINE = MergeTree() ORDER BY id');
    // The placement rule with weights 1,1: id % 2 is the shard.
    await chHttp(url, `INSERT INTO default.ev SELECT number, 1 FROM system.numbers WHERE number % 2 = ${i} LIMIT ${ROWS / 2}`);
    // The AWS shard wiring: the same env the CDK stack sets, credentials from Secrets Manager. These
    // shards insert scheduled rows, which 18.16 can grant only to a user that may write (the admin).
    const secretArn = `arn:aws:secretsmanager:eu-west-1:123456789012:secret:ch-writer-${i}`;
    const env = { CH_SCATTER_SHARD: JSON.stringify({ shard: i, replicas: [{ url, secretArn }] }), CH_SCATTER_WRITABLE_TABLES: 'default.roll' };
    shardFns.push(createShardHandler(envShardDeps(env)) as (e: unknown) => Promise<any>);
  }
  const recorded = (f: (e: unknown) => Promise<any>, i: number) => (e: unknown) => {
    const p = e as { type: string; table?: string; sql?: string };
    seen.push(`${i} ${p.type} ${p.table ?? p.sql?.slice(0, 40)}`);
    return f(e);
  };
  invoke = await startInvokeServer({ port: 0, functions: Object.fromEntries(shardFns.map((f, i) => [`ch-scatter-shard-${i}`, recorded(f, i)])) });
}, 60_000);

afterAll(async () => {
  await invoke?.close();
  secrets.restore();
});

const ctx = { getRemainingTimeInMillis: () => 30_000, functionName: 'coord', awsRequestId: 'r' } as unknown as Context;
const health = httpEvent('GET', '/health');

function coordinator(topo: Topology) {
  // Exactly what the deployed coordinator gets: no credentials, no ClickHouse URL to use itself.
  const env = { CH_SCATTER_TOPOLOGY: JSON.stringify(topo), CH_SCATTER_LAMBDA_ENDPOINT: invoke.url };
  return createCoordinatorHandler(() => loadDefaultDeps(env), createTools({ logLevel: 'SILENT' }));
}

describe('coordinator -> shard functions only', () => {
  it("the parity guard reads system tables through shard 0's function, each shard's columns through its own, and passes", async () => {
    seen.length = 0;
    const res = (await coordinator(topology())(health as any, ctx)) as { statusCode: number; body: string };
    expect(res.statusCode, res.body).toBe(200);
    expect(seen.some((x) => x.startsWith('0 query SELECT shard_num, shard_weight'))).toBe(true);
    for (const i of [0, 1]) expect(seen).toContain(`${i} query DESCRIBE TABLE \`default\`.\`ev\``);
    expect(seen.filter((x) => !x.includes('DESCRIBE TABLE')).every((x) => x.startsWith('0 query '))).toBe(true);
  });

  it("a shard whose local table has other columns is refused by the guard (the plan spells * out from one shard's)", async () => {
    const url = servers.current.urls[1]!;
    await chHttp(url, 'ALTER TABLE default.roll ADD COLUMN extra String');
    try {
      const res = (await coordinator(topology())(health as any, ctx)) as { statusCode: number; body: string };
      expect(res.statusCode).toBe(500);
      expect(JSON.parse(res.body).error.message).toMatch(
        /shards' tables differ.*shard 1's default\.roll has \(id UInt64, c UInt64, _run_time DateTime, _partial UInt8, extra String\)/s,
      );
    } finally {
      await chHttp(url, 'ALTER TABLE default.roll DROP COLUMN extra');
    }
  });

  it('a topology that disagrees with the cluster is refused by the guard (it really read the servers)', async () => {
    const res = (await coordinator(topology({ weights: [1, 2] }))(health as any, ctx)) as { statusCode: number; body: string };
    expect(res.statusCode).toBe(500);
    expect(JSON.parse(res.body).error.message).toMatch(/parity check failed.*weight of shards\[1\] \(shard_num 2\): config 2, cluster 1/s);
  });

  it("a scheduled run inserts its rows through the shard functions into each shard's local table", async () => {
    seen.length = 0;
    const run = (await coordinator(topology())({ kind: 'ch-scatter.schedule', name: 'roll' } as any, ctx)) as {
      rows: number;
      perShard: number[];
      partial: boolean;
    };
    expect(run).toMatchObject({ rows: ROWS, perShard: [ROWS / 2, ROWS / 2], partial: false });
    expect(seen.filter((x) => x.includes(' insert ')).sort()).toEqual(['0 insert default.roll', '1 insert default.roll']);
    for (const [i, url] of servers.current.urls.entries()) {
      const rows = await chRows<{ id: string; c: string; _partial: number }>(url, 'SELECT id, c, _partial FROM default.roll ORDER BY id');
      expect(rows).toHaveLength(ROWS / 2);
      expect(rows.every((r) => Number(r.id) % 2 === i && r.c === '1' && r._partial === 0)).toBe(true);
    }
  });

  it('the shard function refuses exec, and inserts into any table not in CH_SCATTER_WRITABLE_TABLES', async () => {
    const base = { queryId: 'q', shard: 0, replica: 0, deadline: Date.now() + 5000 };
    const exec = await shardFns[0]!({ ...base, type: 'exec', sql: 'DROP TABLE default.ev' });
    expect(exec).toMatchObject({ ok: false, error: { code: 'NOT_READ_ONLY' } });
    for (const table of ['default.ev', 'ev', 'default.roll_dist', '`default`.`roll`', 'default.roll; DROP TABLE default.ev']) {
      const ins = await shardFns[0]!({ ...base, type: 'insert', table, rows: [{ id: 1, n: 1 }] });
      expect(ins, table).toMatchObject({ ok: false, error: { code: 'NOT_READ_ONLY' } });
    }
    expect(await chHttp(servers.current.urls[0]!, 'SELECT count() FROM default.ev')).toBe(`${ROWS / 2}\n`);
  });

  it('parity target: the shard whose replica is distributedCheck.endpoint, else shard 0', () => {
    expect(parityTarget(topology({ endpoint: servers.current.urls[1]! }))).toEqual({ shard: 1, replicas: [0], endpointIsShard: true });
    expect(parityTarget(topology({ endpoint: 'http://query-node:8123' }))).toEqual({ shard: 0, replicas: [0], endpointIsShard: false });
  });
});
