// What the coordinator reports per query, in one place: CloudWatch metrics (EMF via Powertools)
// for shard latency, partial results, hedges and errors. Kept apart from the handler so the
// names stay stable (the names live in functions/common/metric-names.ts, which the CDK alarms import too).
import { MetricUnit, type Metrics } from '@aws-lambda-powertools/metrics';
import type { ShardOutcome } from '../../shared/core/scatter/call-shard.js';
import { isQueryFailure } from '../../shared/core/scatter/query-errors.js';
import { METRIC as ALL } from '../common/metric-names.js';

export const METRIC = ALL.coordinator;

/**
 * A shard that failed the query, as opposed to one that answered it with ClickHouse's verdict on the
 * query itself (unknown identifier, syntax, types, a limit of the query's own): that is the query's
 * error, reported once with the answer (QueryError), not a shard failure in the logs or metrics.
 */
export function isShardFault(outcome: Pick<ShardOutcome, 'status' | 'chCode' | 'message'>): boolean {
  return outcome.status !== 'ok' && !isQueryFailure(outcome);
}

export function recordShard(metrics: Metrics, outcome: ShardOutcome): void {
  const latencyMetric = metrics.singleMetric();
  latencyMetric.addDimension('shard', String(outcome.shard));
  latencyMetric.addMetric(METRIC.shardLatency, MetricUnit.Milliseconds, outcome.elapsedMs);
  if (outcome.hedged) metrics.addMetric(METRIC.hedge, MetricUnit.Count, 1);
  if (outcome.retried) metrics.addMetric(METRIC.retry, MetricUnit.Count, 1);
  if (isShardFault(outcome)) {
    const failureMetric = metrics.singleMetric();
    failureMetric.addDimension('reason', outcome.status);
    failureMetric.addMetric(METRIC.shardFailure, MetricUnit.Count, 1);
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
