// Every CloudWatch metric name the two Lambda functions emit, in one table in a module with no
// imports, so the CDK app's alarms read the SAME constants the handlers emit (an alarm on a name
// nobody emits never fires: the coordinator once emitted `PartialResult` while the alarm watched
// `PartialResults`). Each function publishes under its own `service` dimension (Powertools'
// default), so a name means one thing per service.
export const METRIC = {
  /** The coordinator (service ch-scatter-coordinator). */
  coordinator: {
    request: 'Request',
    /** Per shard call, with a `shard` dimension: the time the coordinator waited for that shard. */
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
  },
  /** The shard functions (service ch-scatter-shard). */
  shard: {
    /** The time one request took inside the shard function (ClickHouse included). */
    latency: 'ShardLatency',
    success: 'ShardSuccess',
    timeout: 'ShardTimeout',
    /** A failed or refused request (anything but a timeout or a query error). */
    error: 'ShardError',
    /** ClickHouse rejected the query itself (the client's SQL, or a limit of its own): the query's error, not the shard's. */
    queryError: 'QueryError',
  },
} as const;
