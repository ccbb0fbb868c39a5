// What the coordinator reports per query, in one place: CloudWatch metrics (EMF via Powertools)
// for shard latency, partial results, hedges and errors. Kept apart from the handler so the
// names stay stable (the names live in metric-names.ts, which the CDK alarms import too).
import { MetricUnit, type Metrics } from '@aws-lambda-powertools/metrics';
import type { ShardOutcome } from '../../core/scatter/call-shard.js';
import { METRIC } from './metric-names.js';

export { METRIC };

export function recordShard(metrics: Metrics, o: ShardOutcome): void {
  const m = metrics.singleMetric();
  m.addDimension('shard', String(o.shard));
  m.addMetric(METRIC.shardLatency, MetricUnit.Milliseconds, o.elapsedMs);
  if (o.hedged) metrics.addMetric(METRIC.hedge, MetricUnit.Count, 1);
  if (o.retried) metrics.addMetric(METRIC.retry, MetricUnit.Count, 1);
  if (o.status !== 'ok') {
    const f = metrics.singleMetric();
    f.addDimension('reason', o.status);
    f.addMetric(METRIC.shardFailure, MetricUnit.Count, 1);
  }
}

export function recordResult(metrics: Metrics, status: number, body: unknown): void {
  metrics.addMetric(METRIC.query, MetricUnit.Count, 1);
  if (status === 200 && (body as { partial?: boolean })?.partial) metrics.addMetric(METRIC.partial, MetricUnit.Count, 1);
  if (status >= 400) {
    const code = (body as { error?: { code?: string } })?.error?.code ?? 'UNKNOWN';
    const e = metrics.singleMetric();
    e.addDimension('code', code);
    e.addMetric(METRIC.error, MetricUnit.Count, 1);
  }
}
