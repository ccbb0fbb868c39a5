// Both Lambda functions share one Powertools setup (functions/common/powertools.ts): the service name
// and metrics namespace the CDK stack puts in their environment reach their logs and EMF blobs, log
// lines inside a handler carry the Lambda context, keys a handler appends do not leak into the next
// invocation, and every metric name either function emits is in the one table the alarms read.
import type { Context } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { METRIC } from '../../../functions/common/metric-names.js';
import { createTools, withPowertools } from '../../../functions/common/powertools.js';

const ENV_KEYS = ['POWERTOOLS_METRICS_NAMESPACE', 'POWERTOOLS_SERVICE_NAME', 'POWERTOOLS_METRICS_DISABLED', 'POWERTOOLS_LOG_LEVEL', 'CH_SCATTER_SHARD'];
const saved = Object.fromEntries(ENV_KEYS.map((k) => [k, process.env[k]]));
afterAll(() => {
  for (const k of ENV_KEYS)
    if (saved[k] === undefined) delete process.env[k];
    else process.env[k] = saved[k];
});

const ctx = (id: string): Context =>
  ({
    functionName: 'fn',
    functionVersion: '$LATEST',
    invokedFunctionArn: 'arn:aws:lambda:eu-west-1:123456789012:function:fn',
    memoryLimitInMB: '512',
    awsRequestId: id,
    getRemainingTimeInMillis: () => 30_000,
  }) as unknown as Context;

/** Everything written to stdout/stderr while `f` runs, one JSON object per line that parses. */
async function captured(f: () => Promise<unknown>): Promise<Record<string, any>[]> {
  const chunks: string[] = [];
  const spies = [process.stdout, process.stderr].map((s) =>
    vi.spyOn(s, 'write').mockImplementation(((c: unknown) => {
      chunks.push(String(c));
      return true;
    }) as typeof s.write),
  );
  try {
    await f();
  } finally {
    for (const s of spies) s.mockRestore();
  }
  return chunks
    .join('')
    .split('\n')
    .filter((l) => l.trim().startsWith('{'))
    .map((l) => JSON.parse(l));
}

const emfOf = (lines: Record<string, any>[]) => lines.filter((l) => l._aws?.CloudWatchMetrics);
const namesOf = (emf: Record<string, any>[]) => emf.flatMap((b) => b._aws.CloudWatchMetrics.flatMap((m: any) => m.Metrics.map((x: any) => x.Name)));

describe('createTools', () => {
  it('takes the service name and namespace from the environment, else the defaults', () => {
    const fromEnv = createTools('fallback', { env: { POWERTOOLS_SERVICE_NAME: 'svc-env', POWERTOOLS_METRICS_NAMESPACE: 'NsEnv' } });
    fromEnv.metrics.addMetric('X', 'Count', 1);
    const blob = fromEnv.metrics.serializeMetrics() as any;
    expect(blob._aws.CloudWatchMetrics[0].Namespace).toBe('NsEnv');
    expect(blob.service).toBe('svc-env');
    const plain = createTools('fallback', { env: {} });
    plain.metrics.addMetric('X', 'Count', 1);
    const b2 = plain.metrics.serializeMetrics() as any;
    expect(b2._aws.CloudWatchMetrics[0].Namespace).toBe('ch-scatter');
    expect(b2.service).toBe('fallback');
  });
});

describe('withPowertools', () => {
  beforeAll(() => {
    delete process.env.POWERTOOLS_METRICS_DISABLED;
    delete process.env.POWERTOOLS_LOG_LEVEL;
  });

  it('logs with the Lambda context, flushes the metrics once per invocation and resets appended keys', async () => {
    const tools = createTools('wrapped', { env: { POWERTOOLS_METRICS_NAMESPACE: 'NsWrap' } });
    let n = 0;
    const h = withPowertools(async (_event: unknown) => {
      if (n++ === 0) tools.logger.appendKeys({ queryId: 'first' });
      tools.logger.info('inside');
      tools.metrics.addMetric('Inside', 'Count', 1);
      return 'ok';
    }, tools);
    const lines = await captured(async () => {
      expect(await h({}, ctx('req-1'))).toBe('ok');
      expect(await h({}, ctx('req-2'))).toBe('ok');
    });
    const logs = lines.filter((l) => l.message === 'inside');
    expect(logs.map((l) => l.function_request_id)).toEqual(['req-1', 'req-2']);
    expect(logs[0]!.queryId).toBe('first');
    expect(logs[1]!.queryId).toBeUndefined();
    const emf = emfOf(lines);
    expect(emf).toHaveLength(2);
    expect(emf.every((b) => b._aws.CloudWatchMetrics[0].Namespace === 'NsWrap')).toBe(true);
  });

  it('the deployed shard handler publishes under the namespace its environment names, with names from the table', async () => {
    process.env.POWERTOOLS_METRICS_NAMESPACE = 'NsShard';
    process.env.POWERTOOLS_SERVICE_NAME = 'ch-scatter-shard';
    process.env.CH_SCATTER_SHARD = JSON.stringify({ shard: 0, replicas: [{ url: 'http://127.0.0.1:9' }] });
    const { handler } = await import('../../../functions/shard/handler.js');
    let res: any;
    const lines = await captured(async () => {
      // Replica 3 does not exist: a refused request, counted as an error.
      res = await handler({ type: 'query', queryId: 'q1', shard: 0, replica: 3, sql: 'SELECT 1', deadline: Date.now() + 1000 } as never, ctx('req-s'));
    });
    expect(res).toMatchObject({ ok: false, error: { code: 'BAD_REQUEST' } });
    const emf = emfOf(lines);
    expect(emf).toHaveLength(1);
    expect(emf[0]!._aws.CloudWatchMetrics[0].Namespace).toBe('NsShard');
    expect(emf[0]!.service).toBe('ch-scatter-shard');
    const names = namesOf(emf);
    expect(names).toEqual([METRIC.shard.error]);
    expect(lines.some((l) => l.message === 'shard request refused' && l.function_request_id === 'req-s')).toBe(true);
  });
});

describe('the metric-name table', () => {
  it('holds no name twice within one function', () => {
    for (const names of [Object.values(METRIC.coordinator), Object.values(METRIC.shard)]) expect(new Set(names).size).toBe(names.length);
  });
});
