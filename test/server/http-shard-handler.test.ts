// The deployed shard handler (middy + Powertools) end to end against clickhouse-server 18.16:
// configured from CH_SCATTER_SHARD, credentials from Secrets Manager (mocked client, real
// Powertools getSecret), the Lambda's remaining time capping the deadline, and logs that carry
// neither row data nor the password.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { mockClient } from 'aws-sdk-client-mock';
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import type { Context } from 'aws-lambda';
import type { ShardFailure, ShardRequest, ShardSuccess } from '../../shared/core/protocol/shard-wire.js';
import { useChServers } from '../support/ch-servers.js';
import { fakeLambdaContext } from '../support/lambda-context.js';

const servers = useChServers({ n: 1, portBase: 19220 });
const sm = mockClient(SecretsManagerClient);
let handler: (event: unknown, context: Context) => Promise<unknown>;
const logged: string[] = [];

const context = (remainingMs = 60_000): Context => fakeLambdaContext({ requestId: 'req-1', remainingMs });

beforeAll(async () => {
  process.env.AWS_REGION = 'eu-west-1';
  process.env.AWS_ACCESS_KEY_ID = 'test';
  process.env.AWS_SECRET_ACCESS_KEY = 'test';
  const url = servers.current.urls[0]!;
  process.env.CH_SCATTER_SHARD = JSON.stringify({
    shard: 3,
    replicas: [
      { url, secretArn: 'arn:good' },
      { url, secretArn: 'arn:bad' },
    ],
  });
  sm.on(GetSecretValueCommand, { SecretId: 'arn:good' }).resolves({ SecretString: JSON.stringify({ username: 'default', password: '' }) });
  sm.on(GetSecretValueCommand, { SecretId: 'arn:bad' }).resolves({ SecretString: JSON.stringify({ username: 'default', password: 'S3cr3t-pw-h5' }) });
  for (const s of [process.stdout, process.stderr]) {
    const orig = s.write.bind(s);
    vi.spyOn(s, 'write').mockImplementation(((chunk: unknown, ...rest: unknown[]) => {
      logged.push(String(chunk));
      return (orig as (...a: unknown[]) => boolean)(chunk, ...rest);
    }) as typeof s.write);
  }
  ({ handler } = (await import('../../functions/shard/handler.js')) as unknown as { handler: typeof handler });
});
afterAll(() => {
  vi.restoreAllMocks();
  sm.restore();
});

const req = (over: Partial<ShardRequest> = {}): ShardRequest => ({
  type: 'query',
  queryId: 'hq-1',
  shard: 3,
  replica: 0,
  sql: "SELECT 'row-marker-h5' AS m, count() AS c FROM numbers(10)",
  deadline: Date.now() + 5000,
  settings: {},
  external: [],
  attempt: 'primary',
  ...over,
});

describe('shard handler (Lambda wiring)', () => {
  it('runs the request with credentials from Secrets Manager', async () => {
    const r = (await handler(req(), context())) as ShardSuccess;
    expect(r.ok).toBe(true);
    expect(r.rows).toEqual([{ m: 'row-marker-h5', c: '10' }]);
    expect(sm.commandCalls(GetSecretValueCommand, { SecretId: 'arn:good' }).length).toBe(1);
    await handler(req({ queryId: 'hq-2' }), context());
    expect(sm.commandCalls(GetSecretValueCommand, { SecretId: 'arn:good' }).length).toBe(1); // cached
  });

  it('uses the replica named in the payload (its secret is applied: a wrong password fails)', async () => {
    const r = (await handler(req({ replica: 1 }), context())) as ShardFailure;
    expect(r.ok).toBe(false);
    expect(r.error.kind).toBe('error');
    expect(r.error.chCode).toBe(193); // WRONG_PASSWORD on 18.16
  });

  it('refuses mis-routed, unknown-replica and malformed requests with typed failures', async () => {
    expect(((await handler(req({ shard: 1 }), context())) as ShardFailure).error.code).toBe('BAD_REQUEST');
    expect(((await handler(req({ replica: 7 }), context())) as ShardFailure).error.code).toBe('BAD_REQUEST');
    expect(((await handler({ type: 'query', shard: 3 }, context())) as ShardFailure).error.code).toBe('BAD_REQUEST');
    expect(((await handler({ ...req(), type: 'exec', sql: 'DROP TABLE x' }, context())) as ShardFailure).error.code).toBe('NOT_READ_ONLY');
  });

  it("caps the deadline by the Lambda's remaining time", async () => {
    const t0 = Date.now();
    const r = (await handler(req({ sql: 'SELECT count() FROM system.numbers', deadline: Date.now() + 10_000 }), context(900))) as ShardFailure;
    expect(r.error.kind).toBe('timeout');
    expect(Date.now() - t0).toBeLessThan(1200);
  });

  it("a query error is the query's (INFO, QueryError); a failing replica stays a shard failure (WARN, ShardError)", async () => {
    /** What one invocation printed: its JSON log lines and the names of the metrics in its EMF blobs. */
    const emitted = async (r: ShardRequest) => {
      const from = logged.length;
      const res = (await handler(r, context())) as ShardFailure;
      const lines = logged
        .slice(from)
        .join('')
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l) as { level?: string; message?: string; chCode?: number; _aws?: { CloudWatchMetrics: { Metrics: { Name: string }[] }[] } });
      const metrics = lines.flatMap((l) => l._aws?.CloudWatchMetrics.flatMap((m) => m.Metrics.map((x) => x.Name)) ?? []);
      return { res, logs: lines.filter((l) => l.level), metrics };
    };
    // 18.16's own codes: 47 UNKNOWN_IDENTIFIER, 43 ILLEGAL_TYPE_OF_ARGUMENT, 62 SYNTAX_ERROR.
    for (const [sql, code] of [
      ['SELECT nope FROM numbers(1)', 47],
      ["SELECT sum('a') FROM numbers(1)", 43],
      ['SELECT (1', 62],
    ] as const) {
      const { res, logs, metrics } = await emitted(req({ queryId: `hq-bad-${code}`, sql }));
      expect(res.error.chCode).toBe(code);
      expect(logs.map((l) => [l.level, l.message, l.chCode])).toEqual([['INFO', 'shard request answered: query error', code]]);
      expect(metrics).toContain('QueryError');
      expect(metrics).not.toContain('ShardError');
    }
    const { res, logs, metrics } = await emitted(req({ queryId: 'hq-pw', replica: 1 }));
    expect(res.error.chCode).toBe(193); // WRONG_PASSWORD: the replica's, another one may answer
    expect(logs.map((l) => [l.level, l.message])).toEqual([['WARN', 'shard request failed']]);
    expect(metrics).toContain('ShardError');
    expect(metrics).not.toContain('QueryError');
  });

  it('logs neither row data nor credentials', () => {
    const all = logged.join('');
    expect(all).toMatch(/shard request done/);
    expect(all).toMatch(/hq-1/); // the query id is on the log lines
    expect(all).not.toMatch(/row-marker-h5/);
    expect(all).not.toMatch(/S3cr3t-pw-h5/);
  });
});
