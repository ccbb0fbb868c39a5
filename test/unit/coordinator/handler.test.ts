import { beforeAll, describe, expect, it } from 'vitest';
import { httpEvent } from '../../support/http-event.js';
import type { Context } from 'aws-lambda';
import { createCoordinatorHandler, createTools } from '../../../functions/coordinator/handler.js';
import type { CoordinatorDeps } from '../../../functions/coordinator/deps.js';
import { createHedgeState } from '../../../shared/core/scatter/hedge.js';
import { fakeInvoker, sumPlan, topo } from '../scatter/fakes.js';
import { parseTopology } from '../../../shared/core/config/load.js';

beforeAll(() => {
  process.env.POWERTOOLS_LOG_LEVEL = 'SILENT';
  process.env.POWERTOOLS_METRICS_DISABLED = 'true';
});

const ctx = (remaining = 30_000): Context =>
  ({
    functionName: 'coord',
    functionVersion: '1',
    invokedFunctionArn: 'arn:aws:lambda:us-east-1:1:function:coord',
    memoryLimitInMB: '512',
    awsRequestId: 'req-1',
    logGroupName: 'g',
    logStreamName: 's',
    callbackWaitsForEmptyEventLoop: true,
    getRemainingTimeInMillis: () => remaining,
  }) as unknown as Context;

const http = (method: string, path: string, body?: unknown) =>
  httpEvent(method, path, body === undefined ? undefined : JSON.stringify(body), { 'x-query-id': 'qid-42' }, 'r');

function deps(over: Partial<CoordinatorDeps> = {}): CoordinatorDeps & { written: Array<{ table: string; rows: Record<string, unknown>[] }>; seen: string[] } {
  const written: Array<{ table: string; rows: Record<string, unknown>[] }> = [];
  const seen: string[] = [];
  const t = parseTopology({
    cluster: 'c',
    shards: [{ replicas: [{ url: 'http://a:8123' }] }, { replicas: [{ url: 'http://b:8123' }] }],
    tables: {
      'db.t_dist': { local: 'db.t', shardingKey: { column: 'k', type: 'UInt64', function: 'identity' } },
      'db.roll_dist': { local: 'db.roll', shardingKey: { column: 'c', type: 'UInt64', function: 'identity' } },
    },
    schedules: [{ name: 'hourly', schedule: 'rate(1 hour)', sql: 'SELECT count() AS c FROM db.t_dist', destination: { table: 'db.roll_dist' } }],
  });
  const invoker = fakeInvoker((s) => ({ kind: 'ok', c: s + 1 }));
  const base: CoordinatorDeps = {
    topo: t,
    invoker: {
      invoke: (shard, p, sig) => {
        seen.push(p.queryId);
        return invoker.invoke(shard, p, sig);
      },
    },
    planQuery: async () => sumPlan(2),
    explainPlan: (p) => ({ shards: p.shards.map((s) => ({ shard: s.shard, skipped: s.skipped, sql: s.sql })), external: [], merge: p.mergeDescription }),
    hedgeState: createHedgeState(),
    writeRows: async (table, rows) => {
      written.push({ table, rows });
      return { inserted: rows.length, perShard: [rows.length, 0] };
    },
    ...over,
  };
  return Object.assign(base, { written, seen });
}

describe('coordinator handler', () => {
  it('POST /query answers the documented shape, with the query id on every shard request', async () => {
    const d = deps();
    const h = createCoordinatorHandler(async () => d, createTools());
    const res = (await h(http('POST', '/query', { sql: 'SELECT count() AS c FROM db.t_dist' }) as any, ctx())) as any;
    expect(res.statusCode).toBe(200);
    expect(res.headers['x-query-id']).toBe('qid-42');
    const body = JSON.parse(res.body);
    expect(body).toMatchObject({
      meta: [{ name: 'c', type: 'UInt64' }],
      data: [{ c: '3' }],
      rows: 1,
      partial: false,
      shards: { total: 2, queried: 2, succeeded: 2 },
    });
    expect(d.seen).toEqual(['qid-42', 'qid-42']);
  });

  it('bounds the deadline by the Lambda remaining time', async () => {
    const d = deps({ invoker: fakeInvoker(() => ({ kind: 'hang' })) });
    const h = createCoordinatorHandler(async () => d, createTools());
    const t0 = Date.now();
    const res = (await h(http('POST', '/query', { sql: 'x', timeoutMs: 10_000 }) as any, ctx(400))) as any;
    expect(Date.now() - t0).toBeLessThan(1000);
    expect(res.statusCode).toBe(504);
    expect(JSON.parse(res.body).shards.timedOut).toBe(2);
  });

  it('POST /explain, GET /health, unknown routes and bad bodies', async () => {
    const h = createCoordinatorHandler(async () => deps(), createTools());
    const ex = (await h(http('POST', '/explain', { sql: 'x' }) as any, ctx())) as any;
    expect(ex.statusCode).toBe(200);
    expect(JSON.parse(ex.body).merge).toBe('sum c');
    const health = (await h(http('GET', '/prod/health') as any, ctx())) as any;
    expect(health.statusCode).toBe(200);
    expect(JSON.parse(health.body).shards).toHaveLength(2);
    expect(((await h(http('GET', '/nope') as any, ctx())) as any).statusCode).toBe(404);
    expect(((await h(http('GET', '/query') as any, ctx())) as any).statusCode).toBe(405);
    const bad = (await h(http('POST', '/query', { sql: 42 }) as any, ctx())) as any;
    expect(bad.statusCode).toBe(400);
    expect(JSON.parse(bad.body).error.message).toContain('$.sql');
  });

  it('a scheduled event runs the saved SQL and writes rows + run time + partial flag', async () => {
    const d = deps();
    const h = createCoordinatorHandler(async () => d, createTools());
    const run = (await h({ kind: 'ch-scatter.schedule', name: 'hourly' } as any, ctx())) as any;
    expect(run).toMatchObject({ name: 'hourly', destination: 'db.roll_dist', rows: 1, partial: false });
    expect(d.written).toHaveLength(1);
    expect(d.written[0]!.table).toBe('db.roll_dist');
    expect(d.written[0]!.rows[0]).toMatchObject({ c: '3', _partial: 0 });
    expect(d.written[0]!.rows[0]!._run_time).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);
  });

  it('a partial scheduled run is still written, flagged; a failed run throws', async () => {
    const slow = deps({ invoker: fakeInvoker((s) => (s === 1 ? { kind: 'throw', error: new Error('boom') } : { kind: 'ok', c: 5 })) });
    const h = createCoordinatorHandler(async () => slow, createTools());
    const run = (await h({ kind: 'ch-scatter.schedule', name: 'hourly' } as any, ctx())) as any;
    expect(run.partial).toBe(true);
    expect(slow.written[0]!.rows[0]).toMatchObject({ c: '5', _partial: 1 });
    const failing = deps({
      writeRows: async () => {
        throw new Error('disk full');
      },
    });
    const h2 = createCoordinatorHandler(async () => failing, createTools());
    await expect(h2({ kind: 'ch-scatter.schedule', name: 'hourly' } as any, ctx())).rejects.toThrow(/schedule hourly failed/);
    await expect(h2({ kind: 'ch-scatter.schedule', name: 'nope' } as any, ctx())).rejects.toThrow(/no schedule named/);
  });

  it('fails fast on every invocation when startup (the parity guard) failed', async () => {
    let loads = 0;
    const h = createCoordinatorHandler(async () => {
      loads++;
      throw new Error('shard count differs: config 2, cluster 3');
    }, createTools());
    for (let i = 0; i < 2; i++) {
      const res = (await h(http('POST', '/query', { sql: 'x' }) as any, ctx())) as any;
      expect(res.statusCode).toBe(500);
      expect(JSON.parse(res.body).error.message).toContain('shard count differs');
      expect(res.body).not.toContain('at ');
    }
    expect(loads).toBe(1);
  });

  it('rejects an event that is neither HTTP nor a schedule', async () => {
    const h = createCoordinatorHandler(async () => deps(), createTools());
    await expect(h({ hello: 1 } as any, ctx())).rejects.toThrow(/unrecognized event/);
  });
});
void topo;

describe('query id', () => {
  it('a caller-chosen x-query-id is used only when it is a plain id', async () => {
    const d = deps();
    const h = createCoordinatorHandler(async () => d, createTools());
    const ev = http('POST', '/query', { sql: 'x' });
    ev.headers['x-query-id'] = "x'; KILL QUERY WHERE 1 --";
    const res = (await h(ev as any, ctx())) as any;
    expect(res.statusCode).toBe(200);
    expect(res.headers['x-query-id']).toBe('r');
    expect(d.seen).toEqual(['r', 'r']);
  });
});

describe('events, validated with the Parser schemas', () => {
  const noStack = (text: string) => expect(text).not.toMatch(/\n\s+at |node_modules|\.ts:\d+/);

  it('an API Gateway event that fails its schema gets a 400 BAD_REQUEST naming the problem, never a stack trace', async () => {
    const d = deps();
    const h = createCoordinatorHandler(async () => d, createTools());
    const cases: Array<[string, (e: ReturnType<typeof http>) => unknown, RegExp]> = [
      ['a header that is not a string', (e) => ({ ...e, headers: { 'x-query-id': 42 } }), /\$\.headers\["x-query-id"\]: /],
      ['a body that is not a string', (e) => ({ ...e, body: { sql: 'SELECT 1' } }), /\$\.body: /],
      ['no http block', (e) => ({ ...e, requestContext: { ...e.requestContext, http: undefined } }), /\$\.requestContext\.http: /],
      ['a requestContext of null', (e) => ({ ...e, requestContext: null }), /\$\.requestContext: /],
      [
        'a source address that is not an IP',
        (e) => ({ ...e, requestContext: { ...e.requestContext, http: { ...e.requestContext.http, sourceIp: 'x' } } }),
        /sourceIp/,
      ],
      ['isBase64Encoded missing', ({ isBase64Encoded: _, ...e }) => e, /\$\.isBase64Encoded: /],
    ];
    for (const [name, mutate, want] of cases) {
      const res = (await h(mutate(http('POST', '/query', { sql: 'SELECT count() AS c FROM db.t_dist' })) as any, ctx())) as any;
      expect(res.statusCode, name).toBe(400);
      const body = JSON.parse(res.body);
      expect(body.error.code, name).toBe('BAD_REQUEST');
      expect(body.error.message, name).toMatch(/^malformed API Gateway event: /);
      expect(body.error.message, name).toMatch(want);
      expect(res.headers['x-query-id'], name).toMatch(/^[0-9a-f-]{36}$/);
      noStack(res.body);
    }
    expect(d.seen).toEqual([]); // none of them reached a shard
  });

  it('caps the problems listed for one event', async () => {
    const h = createCoordinatorHandler(async () => deps(), createTools());
    const res = (await h({ requestContext: {} } as any, ctx())) as any;
    expect(res.statusCode).toBe(400);
    const message: string = JSON.parse(res.body).error.message;
    expect(message.split('; ')).toHaveLength(6);
    expect(message).toMatch(/\(\d+ more\)$/);
  });

  it('a method the router does not serve is still a 405, not a 400 for the event', async () => {
    const h = createCoordinatorHandler(async () => deps(), createTools());
    const res = (await h(http('PROPFIND', '/query') as any, ctx())) as any;
    expect(res.statusCode).toBe(405);
  });

  it('a whole EventBridge event with detail-type ch-scatter.schedule runs the named schedule', async () => {
    const d = deps();
    const h = createCoordinatorHandler(async () => d, createTools());
    const event = {
      version: '0',
      id: '6a7e8feb-b491-4cf7-a9f1-bf3703467718',
      'detail-type': 'ch-scatter.schedule',
      source: 'ch-scatter',
      account: '123456789012',
      time: '2026-12-01T04:00:00Z',
      region: 'eu-west-1',
      resources: [],
      detail: { name: 'hourly' },
    };
    const run = (await h(event as any, ctx())) as any;
    expect(run).toMatchObject({ name: 'hourly', destination: 'db.roll_dist', rows: 1 });
    expect(d.written).toHaveLength(1);
  });

  it('a malformed schedule event fails the invocation with its problem and runs nothing', async () => {
    const d = deps();
    const h = createCoordinatorHandler(async () => d, createTools());
    await expect(h({ kind: 'ch-scatter.schedule', name: 42 } as any, ctx())).rejects.toThrow(/^malformed schedule event: \$\.name: /);
    await expect(h({ kind: 'ch-scatter.schedule', name: '' } as any, ctx())).rejects.toThrow(/^malformed schedule event: \$\.name: /);
    await expect(h({ 'detail-type': 'ch-scatter.schedule', detail: { name: 'hourly' } } as any, ctx())).rejects.toThrow(
      /^malformed schedule event: \$\.version: /,
    );
    expect(d.written).toEqual([]);
    expect(d.seen).toEqual([]);
  });

  it('anything else is refused as unrecognized', async () => {
    const h = createCoordinatorHandler(async () => deps(), createTools());
    for (const e of [null, 'x', 7, [], { kind: 'other', name: 'hourly' }]) {
      await expect(h(e as any, ctx())).rejects.toThrow(/^unrecognized event/);
    }
  });
});
