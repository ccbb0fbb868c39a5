// Alarms an operator of this service needs to hear about:
// - errors and throttles of the coordinator and of every shard function (a failing or throttled shard
//   function turns answers partial before anything else looks wrong);
// - the partial-result rate: the coordinator emits `PartialResults` (Count, one per partial answer) with
//   Powertools' default `service` dimension; the alarm divides it by coordinator invocations;
// - p99 coordinator latency, by default at the query deadline: p99 there means queries are running
//   into the deadline rather than finishing.
import { Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as actions from 'aws-cdk-lib/aws-cloudwatch-actions';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import * as sns from 'aws-cdk-lib/aws-sns';
import { Construct } from 'constructs';
import { METRIC } from '../../functions/common/metric-names.js';

/** The coordinator's own constant: one name for emitter and alarm. */
export const PARTIAL_RESULTS_METRIC: string = METRIC.coordinator.partial;
const PERIOD = Duration.minutes(5);

export interface AlarmsProps {
  coordinator: lambda.IFunction;
  coordinatorServiceName: string;
  shards: lambda.IFunction[];
  metricsNamespace: string;
  partialRatePercent: number;
  p99LatencyMs: number;
  errorThreshold: number;
  alarmTopicArn?: string;
}

export class Alarms extends Construct {
  readonly alarms: cloudwatch.Alarm[] = [];

  constructor(scope: Construct, id: string, props: AlarmsProps) {
    super(scope, id);
    const topic = props.alarmTopicArn ? sns.Topic.fromTopicArn(this, 'Topic', props.alarmTopicArn) : undefined;
    const add = (alarmId: string, alarmProps: cloudwatch.AlarmProps): void => {
      const alarm = new cloudwatch.Alarm(this, alarmId, {
        treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
        ...alarmProps,
      });
      if (topic) {
        alarm.addAlarmAction(new actions.SnsAction(topic));
        alarm.addOkAction(new actions.SnsAction(topic));
      }
      this.alarms.push(alarm);
    };
    const failures = (fn: lambda.IFunction, label: string, alarmId: string): void => {
      add(`${alarmId}Errors`, {
        alarmDescription: `ch-scatter ${label}: invocations failed (crash, timeout or unhandled error)`,
        metric: fn.metricErrors({ period: PERIOD, statistic: 'Sum' }),
        threshold: props.errorThreshold,
        evaluationPeriods: 1,
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      });
      add(`${alarmId}Throttles`, {
        alarmDescription: `ch-scatter ${label}: invocations throttled (concurrency limit)`,
        metric: fn.metricThrottles({ period: PERIOD, statistic: 'Sum' }),
        threshold: props.errorThreshold,
        evaluationPeriods: 1,
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      });
    };
    failures(props.coordinator, 'coordinator', 'Coordinator');
    for (const [i, fn] of props.shards.entries()) failures(fn, `shard ${i}`, `Shard${i}`);

    const partial = new cloudwatch.Metric({
      namespace: props.metricsNamespace,
      metricName: PARTIAL_RESULTS_METRIC,
      dimensionsMap: { service: props.coordinatorServiceName },
      statistic: 'Sum',
      period: PERIOD,
    });
    const invocations = props.coordinator.metricInvocations({ period: PERIOD, statistic: 'Sum' });
    add('PartialResultRate', {
      alarmDescription: `ch-scatter: more than ${props.partialRatePercent}% of answers were partial (shards missing at the deadline)`,
      metric: new cloudwatch.MathExpression({
        expression: 'IF(invocations > 0, 100 * FILL(partial, 0) / invocations, 0)',
        usingMetrics: { partial, invocations },
        label: 'Partial results (% of coordinator invocations)',
        period: PERIOD,
      }),
      threshold: props.partialRatePercent,
      evaluationPeriods: 1,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
    });
    add('CoordinatorP99Latency', {
      alarmDescription: `ch-scatter: p99 coordinator duration reached ${props.p99LatencyMs} ms`,
      metric: props.coordinator.metricDuration({ period: PERIOD, statistic: 'p99' }),
      threshold: props.p99LatencyMs,
      evaluationPeriods: 3,
      datapointsToAlarm: 2,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
    });
  }
}
