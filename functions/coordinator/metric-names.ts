// The coordinator's CloudWatch metric names, in a module with no imports so the CDK app's alarms
// and the coordinator read the SAME constant (an alarm on a name nobody emits never fires: the
// coordinator once emitted `PartialResult` while the alarm watched `PartialResults`).
export const METRIC = {
  request: 'Request',
  shardLatency: 'ShardLatency',
  shardFailure: 'ShardFailure',
  hedge: 'HedgedRequest',
  retry: 'RetriedRequest',
  partial: 'PartialResults',
  error: 'QueryError',
  query: 'Query',
  scheduleRun: 'ScheduleRun',
  scheduleFailed: 'ScheduleFailed',
  schedulePartial: 'SchedulePartial',
  // One per sub-coordinator request answered (the aggregation tree); also keeps such invocations from
  // publishing an empty EMF blob. Shard metrics are recorded once, by the root.
  subCoordinator: 'SubCoordinatorRun',
} as const;
