// What `cdk deploy` would ship, run the way Lambda runs it: the cloud assembly synthesized (real
// esbuild bundles, through cdk/create.ts as `cdk synth` does) from a topology whose replicas are two
// Debian clickhouse-server 18.16 instances on loopback, then served by local/sim. Every function runs
// from a copy of its asset directory outside the project, in its own process, with the template's
// Handler, Environment, Timeout and reserved concurrency. Shard 1 is given (by escape hatch, as an
// operator might) a 3 s Timeout below the 8 s query deadline and a reserved concurrency of 1.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { App } from 'aws-cdk-lib';
import type { CfnFunction } from 'aws-cdk-lib/aws-lambda';
import { PROJECT_ROOT } from '../../cdk/bundling.js';
import { createChScatter } from '../../cdk/create.js';
import { parseTopology } from '../../shared/core/config/load.js';
import { startSim, type Sim } from '../../local/sim/index.js';
import { startLocalStack, type LocalStack } from '../../local/stack.js';
import { ADMIN, chHttp, useChServers } from '../support/ch-servers.js';
import { storedObjects } from '../support/exchange-harness.js';

const servers = useChServers({ n: 2, portBase: 19900 });
const dir = mkdtempSync(join(tmpdir(), 'ch-scatter-sim-test-'));
const logs: string[] = [];
let sim: Sim;
let local: LocalStack;
/** While set, shard 1's credentials lookup hangs (a Secrets Manager endpoint its subnet cannot reach). */
let stallShard1Secret = false;
let shard1Name = '';

// A SigV4-shaped Authorization header: the simulated IAM authorizer checks its shape, not the signature.
const IAM_HEADERS = {
  authorization: `AWS4-HMAC-SHA256 Credential=AKIDSIMTEST/20260101/us-east-1/execute-api/aws4_request, SignedHeaders=host;x-amz-date, Signature=${'0'.repeat(64)}`,
  'x-amz-date': '20260101T000000Z',
};

async function post(base: string, path: string, body: unknown, headers: Record<string, string> = IAM_HEADERS) {
  const r = await fetch(`${base}${path}`, { method: 'POST', headers, body: JSON.stringify(body) });
  const text = await r.text();
  let json: any;
  try {
    json = JSON.parse(text);
  } catch {
    json = text;
  }
  return { status: r.status, body: json };
}

const BIG_ROWS_PER_SHARD = 45_000;
const XG_ROWS_PER_SHARD = 300_000;
/** Below the 8 s query deadline, and roomy enough for a cold start on a loaded 2-core machine. */
const SHARD1_TIMEOUT_S = 3;
/** The shards write scheduled rollups, which 18.16 grants only to a user that may write: the admin. */
const WRITER_SECRET_VALUE = JSON.stringify(ADMIN);

beforeAll(async () => {
  const urls = servers.current.urls;
  for (const [i, url] of urls.entries()) {
    await chHttp(url, 'CREATE TABLE default.ev (id UInt64, n UInt8) ENGINE = MergeTree() ORDER BY id');
    await chHttp(url, 'CREATE TABLE default.roll (n UInt8, c UInt64, _run_time DateTime, _partial UInt8) ENGINE = MergeTree() ORDER BY n');
    await chHttp(url, 'CREATE TABLE default.big (s String) ENGINE = MergeTree() ORDER BY s');
    // One group a row: each shard's stage-one answer is megabytes, over the inline threshold.
    await chHttp(url, 'CREATE TABLE default.xg (k UInt64, v UInt64) ENGINE = MergeTree() ORDER BY k');
    await chHttp(url, `INSERT INTO default.xg SELECT number * 2 + ${i}, number FROM system.numbers LIMIT ${XG_ROWS_PER_SHARD}`);
    // Placement with weights 1,1 and the identity key: id % 2 is the shard.
    await chHttp(url, `INSERT INTO default.ev SELECT number, number % 5 FROM system.numbers WHERE number % 2 = ${i} LIMIT 500`);
    // ~80 bytes per value as JSON: each shard's share fits a Lambda response, the union (the GLOBAL IN
    // set shipped to every shard) does not fit a Lambda request.
    await chHttp(url, `INSERT INTO default.big SELECT concat('${i}-', toString(number), '-${'x'.repeat(56)}') FROM system.numbers LIMIT ${BIG_ROWS_PER_SHARD}`);
  }
  const config = {
    cluster: 'scatter',
    shards: urls.map((url) => ({ weight: 1, replicas: [{ url }] })),
    tables: {
      'default.ev_dist': { local: 'default.ev', shardingKey: { column: 'id', type: 'UInt64', function: 'identity' } },
      'default.roll_dist': { local: 'default.roll', shardingKey: { column: 'n', type: 'UInt8', function: 'identity' } },
      'default.big_dist': { local: 'default.big', shardingKey: { column: 's', type: 'String', function: 'xxHash64' } },
      'default.xg_dist': { local: 'default.xg', shardingKey: { column: 'k', type: 'UInt64', function: 'identity' } },
    },
    query: { timeoutMs: 8000, hedge: { enabled: false } },
    schedules: [
      { name: 'roll', schedule: 'rate(1 hour)', sql: 'SELECT n, count() AS c FROM default.ev_dist GROUP BY n', destination: { table: 'default.roll_dist' } },
    ],
  };
  const configFile = join(dir, 'topology.json');
  writeFileSync(configFile, JSON.stringify(config));

  // Synthesize as `cdk synth -c config=... -o DIR` does (nag off: it adds nothing to the artifacts).
  const outdir = join(dir, 'cdk.out');
  const app = new App({ outdir, context: { config: configFile, nag: false } });
  const stack = createChScatter(app, {});
  const shard1 = stack.shards[1]!.function.fn.node.defaultChild as CfnFunction;
  shard1.timeout = SHARD1_TIMEOUT_S;
  shard1.reservedConcurrentExecutions = 1;
  app.synth();

  sim = await startSim({
    cdkOut: outdir,
    log: (l) => logs.push(l),
    secretValue: (s) => (stallShard1Secret && s.logicalId?.startsWith('Shard1') ? new Promise<string>(() => undefined) : WRITER_SECRET_VALUE),
  });
  shard1Name = sim.assembly.functions.find((f) => f.logicalId.startsWith('Shard1'))!.name;
  local = await startLocalStack({ topo: parseTopology(config), logLevel: 'SILENT' });
}, 180_000);

afterAll(async () => {
  await sim?.stop();
  await local?.stop();
  rmSync(dir, { recursive: true, force: true });
}, 60_000);

describe('the synthesized assembly, run as Lambda runs it', () => {
  it('runs each function from its own copy of the bundle, outside the project, with the template resolved to local names', async () => {
    const fns = [...sim.functions.values()];
    expect(fns).toHaveLength(3);
    for (const f of fns) {
      expect(f.taskRoot.startsWith(PROJECT_ROOT)).toBe(false);
      expect(f.fn.handler).toBe('index.handler');
    }
    const coordinator = sim.assembly.functions.find((f) => f.logicalId.startsWith('Coordinator'))!;
    const shardNames = JSON.parse(coordinator.environment.CH_SCATTER_SHARD_FUNCTIONS!);
    expect(shardNames).toEqual(sim.assembly.functions.filter((f) => f.logicalId.startsWith('Shard')).map((f) => f.name));
    const shard0 = sim.assembly.functions.find((f) => f.logicalId.startsWith('Shard0'))!;
    expect(JSON.parse(shard0.environment.CH_SCATTER_SHARD!).secretArn).toMatch(/^arn:aws:secretsmanager:us-east-1:000000000000:secret:/);
    expect(sim.assembly.routes.map((r) => `${r.method} ${r.path} ${r.authorization.type}`).sort()).toEqual([
      'GET /health AWS_IAM',
      'POST /explain AWS_IAM',
      'POST /query AWS_IAM',
    ]);
    // The route refuses an unsigned request, as the IAM authorizer does.
    expect((await post(sim.url, '/query', { sql: 'SELECT 1' }, {})).status).toBe(403);
  });

  it('answers queries through the HTTP API exactly as the local stack does', async () => {
    const queries = [
      'SELECT count() AS c, sum(id) AS s FROM default.ev_dist',
      'SELECT n, count() AS c, avg(id) AS a, max(id) AS m FROM default.ev_dist GROUP BY n ORDER BY n',
      'SELECT id FROM default.ev_dist WHERE id IN (3, 4, 250, 999) ORDER BY id',
      'SELECT count() AS c FROM default.ev_dist WHERE id GLOBAL IN (SELECT id FROM default.ev_dist WHERE n = 2)',
    ];
    for (const sql of queries) {
      const a = await post(sim.url, '/query', { sql });
      const b = await post(local.url, '/query', { sql }, {});
      expect(a.status, JSON.stringify(a.body)).toBe(200);
      expect(b.status).toBe(200);
      expect(a.body.partial, JSON.stringify(a.body.shards)).toBe(false);
      expect({ meta: a.body.meta, data: a.body.data }).toEqual({ meta: b.body.meta, data: b.body.data });
    }
    const first = await post(sim.url, '/query', { sql: queries[0] });
    expect(first.body.data).toEqual([{ c: '1000', s: String((999 * 1000) / 2) }]);
    // The functions were served by the bundles: no stack trace or log line names a project path
    // it loaded a module from (the resolve hook would have refused it: Runtime.ImportModuleError).
    expect(logs.join('\n')).not.toMatch(/ImportModuleError|outside the task root/);
  });

  it("fires the schedule with the rule's exact Input: the coordinator runs it and the shard functions insert the rows", async () => {
    const rule = sim.assembly.rules.find((r) => r.logicalId.includes('roll'))!;
    expect(rule.scheduleExpression).toBe('rate(1 hour)');
    expect(JSON.parse(rule.targets[0]!.input!)).toEqual({ kind: 'ch-scatter.schedule', name: 'roll' });
    const r = await post(sim.url, '/_sim/rules/roll/fire', {});
    expect(r.status).toBe(200);
    const [answer] = r.body.targets;
    expect(answer.functionError, JSON.stringify(answer.payload)).toBeUndefined();
    expect(answer.payload).toMatchObject({ name: 'roll', rows: 5, partial: false });
    let total = 0;
    for (const url of servers.current.urls) total += Number((await chHttp(url, 'SELECT sum(c) FROM default.roll')).trim());
    expect(total).toBe(1000);
  });

  it("moves a stage-one answer over the inline threshold through the stack's exchange bucket (s3rver): the final stage reads it, the coordinator never holds it", async () => {
    expect(sim.assembly.buckets).toHaveLength(1);
    const sql = 'SELECT count() AS groups, sum(c) AS rows, sum(s) AS total FROM (SELECT k, count() AS c, sum(v) AS s FROM default.xg_dist GROUP BY k)';
    const r = await post(sim.url, '/query', { sql, requireComplete: true });
    expect(r.status, JSON.stringify(r.body).slice(0, 600)).toBe(200);
    const n = XG_ROWS_PER_SHARD;
    expect(r.body.data).toEqual([{ groups: String(2 * n), rows: String(2 * n), total: String(n * (n - 1)) }]);
    // The initiator kept its own rows; the other shard's went through the exchange.
    const fin = r.body.statistics.finalStage;
    expect(fin.kept.rows).toBe(n);
    expect(fin.exchangedBytes).toBeGreaterThan(1024 * 1024);
    expect(fin.requestBytes).toBeLessThan(64 * 1024);
    // The writer's objects are deleted after the answer by the coordinator itself (its role may only
    // delete there): no shard function is invoked for it, so shard 1's one reserved slot stays free.
    const shardFns = sim.assembly.functions.filter((f) => f.logicalId.startsWith('Shard')).map((f) => f.name);
    expect(shardFns).toHaveLength(2);
    let busy = 0;
    await expect
      .poll(
        () => {
          busy += shardFns.reduce((n, name) => n + sim.inFlight(name), 0);
          return storedObjects(sim.s3!.directory).length;
        },
        { timeout: 10_000, interval: 5 },
      )
      .toBe(0);
    expect(busy).toBe(0);
  });

  it('refuses a GLOBAL IN set larger than a Lambda request with a clear 413, not a partial answer', async () => {
    const r = await post(sim.url, '/query', { sql: 'SELECT count() AS c FROM default.ev_dist WHERE toString(id) GLOBAL IN (SELECT s FROM default.big_dist)' });
    expect(r.status, JSON.stringify(r.body).slice(0, 400)).toBe(413);
    expect(r.body.error.code).toMatch(/TOO_LARGE|TRANSFER_LIMIT/);
    expect(r.body.error.message).toMatch(/6 MB|6291456/);
    expect(r.body.partial).toBeUndefined();
  });

  it('a shard function killed at its Timeout makes the answer partial with the reason; a second query meanwhile is throttled by its reserved concurrency', async () => {
    const sql = 'SELECT count() AS c FROM default.ev_dist';
    // A fresh environment for shard 1, so its credentials are looked up (and hang) again.
    await sim.functions.get(shard1Name)!.recycle();
    stallShard1Secret = true;
    try {
      const slow = post(sim.url, '/query', { sql });
      const t0 = Date.now();
      while (sim.inFlight(shard1Name) === 0 && Date.now() - t0 < 20_000) await new Promise((r) => setTimeout(r, 20));
      expect(sim.inFlight(shard1Name)).toBe(1);
      const throttled = await post(sim.url, '/query', { sql });
      expect(throttled.status).toBe(200);
      expect(throttled.body.partial).toBe(true);
      expect(throttled.body.shards.missing).toEqual([expect.objectContaining({ shard: 1, reason: 'throttled' })]);

      const timedOut = await slow;
      expect(timedOut.status).toBe(200);
      expect(timedOut.body.partial).toBe(true);
      expect(timedOut.body.data).toEqual([{ c: '500' }]);
      const missing = timedOut.body.shards.missing;
      expect(missing).toHaveLength(1);
      expect(missing[0].shard).toBe(1);
      expect(JSON.stringify(missing[0])).toMatch(/Task timed out after 3\.00 seconds/);
      expect(sim.functions.get(shard1Name)!.stats.timeouts).toBeGreaterThanOrEqual(1);
    } finally {
      stallShard1Secret = false;
    }
    // The next invocation starts a new environment and answers in full.
    const again = await post(sim.url, '/query', { sql });
    expect(again.body.partial).toBe(false);
  });
});
