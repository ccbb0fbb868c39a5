// Log volume per query, for CloudWatch Logs ingestion: what the functions write to stdout (Powertools'
// JSON lines and EMF metric blobs), counted while they run, plus what Lambda itself writes per
// invocation, which no local run produces.
import { randomUUID } from 'node:crypto';
import { MetricUnit, Metrics } from '@aws-lambda-powertools/metrics';
import { METRIC } from '../../functions/common/metric-names.js';

/**
 * Swallows what this process writes to stdout and stderr (Powertools logs warnings and errors to
 * stderr; Lambda ingests both) and counts its bytes until the returned function restores them.
 */
export function swallowOutput(): { bytes(): number; restore(): void } {
  const saved = [process.stdout.write, process.stderr.write] as const;
  let bytes = 0;
  const count = ((chunk: string | Uint8Array) => {
    bytes += typeof chunk === 'string' ? Buffer.byteLength(chunk) : chunk.length;
    if (process.env.CH_BENCH_COST_ECHO) saved[1].call(process.stderr, chunk);
    return true;
  }) as typeof process.stdout.write;
  process.stdout.write = count;
  process.stderr.write = count;
  return {
    bytes: () => bytes,
    restore: () => {
      [process.stdout.write, process.stderr.write] = saved;
    },
  };
}

/** Runs `fn` with its output swallowed and counted (nothing else may print meanwhile). */
export async function countStdout<T>(fn: () => Promise<T>): Promise<{ result: T; bytes: number }> {
  const out = swallowOutput();
  try {
    return { result: await fn(), bytes: out.bytes() };
  } finally {
    out.restore();
  }
}

/**
 * The EMF blob the shard Lambda's metrics middleware flushes after each invocation (latency and
 * success, functions/shard/shard-function.ts): the local shard hosts run without metrics, so it is
 * produced here once with the same Powertools calls.
 */
export async function shardMetricsBytes(): Promise<number> {
  const { bytes } = await countStdout(async () => {
    const m = new Metrics({ namespace: 'ch-scatter', serviceName: 'ch-scatter-shard' });
    m.addMetric(METRIC.shard.latency, MetricUnit.Milliseconds, 12.345);
    m.addMetric(METRIC.shard.success, MetricUnit.Count, 1);
    m.publishStoredMetrics();
  });
  return bytes;
}

/**
 * Lambda's own lines per invocation (START, END, REPORT with the X-Ray line active tracing adds),
 * in the text log format the stack uses, built from the documented layout with typical values.
 */
export function platformLogBytes(memoryMb: number): number {
  const id = randomUUID();
  const lines = [
    `START RequestId: ${id} Version: $LATEST\n`,
    `END RequestId: ${id}\n`,
    `REPORT RequestId: ${id}\tDuration: 12.34 ms\tBilled Duration: 13 ms\tMemory Size: ${memoryMb} MB\tMax Memory Used: 98 MB\t\n` +
      'XRAY TraceId: 1-674c8a2b-3f1e2d4c5b6a798812345678\tSegmentId: 1a2b3c4d5e6f7a8b\tSampled: true\t\n',
  ];
  return Buffer.byteLength(lines.join(''));
}
