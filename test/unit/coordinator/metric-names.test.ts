// The partial-result alarm watches the metric the coordinator actually emits: same name, same
// namespace-less `service` dimension (read from the EMF blob Powertools would print).
import { describe, expect, it } from 'vitest';
import { Metrics } from '@aws-lambda-powertools/metrics';
import { recordResult } from '../../../functions/coordinator/observe.js';
import { PARTIAL_RESULTS_METRIC } from '../../../cdk/constructs/alarms.js';

describe('coordinator metric names', () => {
  it('a partial 200 emits PartialResults, the name the CDK alarm uses', () => {
    const metrics = new Metrics({ namespace: 'ChScatter', serviceName: 'coord' });
    recordResult(metrics, 200, { partial: true });
    const emf = metrics.serializeMetrics() as unknown as {
      _aws: { CloudWatchMetrics: Array<{ Dimensions: string[][]; Metrics: Array<{ Name: string }> }> };
      service: string;
    };
    const names = emf._aws.CloudWatchMetrics.flatMap((m) => m.Metrics.map((x) => x.Name));
    expect(PARTIAL_RESULTS_METRIC).toBe('PartialResults');
    expect(names).toContain(PARTIAL_RESULTS_METRIC);
    expect(emf._aws.CloudWatchMetrics[0]!.Dimensions).toEqual([['service']]);
    expect(emf.service).toBe('coord');
  });

  it('a complete answer emits no PartialResults', () => {
    const metrics = new Metrics({ namespace: 'ChScatter', serviceName: 'coord' });
    recordResult(metrics, 200, { partial: false });
    const emf = metrics.serializeMetrics() as unknown as { _aws: { CloudWatchMetrics: Array<{ Metrics: Array<{ Name: string }> }> } };
    expect(emf._aws.CloudWatchMetrics.flatMap((m) => m.Metrics.map((x) => x.Name))).not.toContain(PARTIAL_RESULTS_METRIC);
  });
});
