// The ch-scatter stack: one shard function per configured shard, the coordinator, the HTTP API, one
// rule per schedule and the alarms, all derived from a validated topology plus the deploy options.
import { CfnOutput, Fn, Stack, type StackProps } from 'aws-cdk-lib';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import type { Construct } from 'constructs';
import { ConfigError } from '../shared/core/config/load.js';
import type { Topology } from '../shared/core/config/schema.js';
import type { DeployOptions } from './deploy-options.js';
import { deployProblems } from './deploy-problems.js';
import { deriveSizing, exchangeBytesFor, shardTimeoutS, type Sizing } from './sizing.js';
import { ExchangeBucket } from './constructs/exchange-bucket.js';
import { Alarms } from './constructs/alarms.js';
import { Coordinator, COORDINATOR_SERVICE_NAME } from './constructs/coordinator.js';
import { QueryApi } from './constructs/query-api.js';
import { ClickHouseAuthorizer } from './constructs/clickhouse-authorizer.js';
import { Schedules } from './constructs/schedules.js';
import { StreamingDoor } from './constructs/streaming-door.js';
import { ShardFunction } from './constructs/shard-function.js';

export interface ChScatterStackProps extends StackProps {
  topology: Topology;
  options: DeployOptions;
  /** Handler files; default functions/{coordinator,shard}/handler.ts. For apps embedding these constructs. */
  entries?: { coordinator?: string; shard?: string };
}

/**
 * The local tables scheduled runs write (each schedule destination's `local`) and those of the tables
 * marked `"insert": true` (INSERT through the ClickHouse interface): the only tables a shard
 * function accepts `insert` requests for (CH_SCATTER_WRITABLE_TABLES). Scheduled rows go through the
 * shard functions, so the coordinator never holds ClickHouse credentials. A destination that is not a
 * configured table could not be routed: the config schema refuses it, and so does this (for a topology
 * built by hand).
 */
export function scheduleWriteTables(topology: Topology): string[] {
  const out = new Set<string>();
  const problems: string[] = [];
  topology.schedules.forEach((s, i) => {
    const t = topology.tables[s.destination.table];
    if (t) out.add(t.local);
    else problems.push(`$.schedules[${i}].destination.table: ${s.destination.table} is not in "tables" (rows are routed by its sharding key)`);
  });
  if (problems.length) throw new ConfigError(problems);
  // Tables marked "insert": true take INSERT through the ClickHouse interface, routed the same way.
  for (const t of Object.values(topology.tables)) if (t.insert) out.add(t.local);
  return [...out].sort();
}

/** The configured bound on the final stage's input, at most what a shard function holds (0 is unlimited: the function's bound). */
export function finalStageBytes(configured: number, functionBytes: number): number {
  return configured === 0 ? functionBytes : Math.min(configured, functionBytes);
}

export class ChScatterStack extends Stack {
  readonly sizing: Sizing;
  readonly shards: ShardFunction[];
  readonly exchange: ExchangeBucket;
  readonly coordinator: Coordinator;
  readonly api: QueryApi;
  /** With the `clickhouse` deploy option and a users secret: the Lambda authorizer of the ClickHouse routes. */
  readonly clickhouseAuthorizer: ClickHouseAuthorizer | undefined;
  readonly schedules: Schedules;
  readonly alarms: Alarms;
  /** With the `streaming` deploy option: the Function URL that streams answers. */
  readonly streamingDoor: StreamingDoor | undefined;

  constructor(scope: Construct, id: string, props: ChScatterStackProps) {
    super(scope, id, props);
    const { topology, options } = props;
    // Refuse before creating anything, every problem at once: fault injection and embedded engines
    // would silently do nothing (or worse) in Lambda, and the rest would fail the deployment.
    const problems = deployProblems(topology, options);
    if (problems.length) throw new ConfigError(problems);

    this.sizing = deriveSizing(topology.query, topology.shards.length, options.memory);
    const writableTables = scheduleWriteTables(topology);

    const vpc = options.vpc
      ? {
          // Only the id matters: the functions name their subnets explicitly, so no AZ lookup (or
          // credentials) is needed at synthesis.
          vpc: ec2.Vpc.fromVpcAttributes(this, 'Vpc', { vpcId: options.vpc.vpcId, availabilityZones: Fn.getAzs() }),
          subnets: options.vpc.subnetIds.map((id, i) => ec2.Subnet.fromSubnetId(this, `Subnet${i}`, id)),
          securityGroups: options.vpc.securityGroupIds.map((id, i) => ec2.SecurityGroup.fromSecurityGroupId(this, `SecurityGroup${i}`, id)),
        }
      : undefined;

    // Stage-one answers too large to travel inline, and the bound every function holds of them.
    this.exchange = new ExchangeBucket(this, 'Exchange');
    const exchangeBytes = exchangeBytesFor(this.sizing.shardMemoryMb);
    this.shards = topology.shards.map(
      (shard, index) =>
        new ShardFunction(this, `Shard${index}`, {
          index,
          shard,
          entry: props.entries?.shard,
          metricsNamespace: options.metricsNamespace,
          memoryMb: this.sizing.shardMemoryMb,
          timeoutS: shardTimeoutS(this.sizing, options.streaming?.timeoutS),
          logRetentionDays: options.logRetentionDays,
          vpc,
          writableTables,
          exchange: { bucket: this.exchange, maxBytes: exchangeBytes },
          streaming: options.streaming !== undefined,
        }),
    );

    this.coordinator = new Coordinator(this, 'Coordinator', {
      // The final stage's input is held by a shard function: never more than its memory allows.
      topology: { ...topology, query: { ...topology.query, maxFinalStageBytes: finalStageBytes(topology.query.maxFinalStageBytes, exchangeBytes) } },
      shards: this.shards,
      entry: props.entries?.coordinator,
      vpc: options.vpc?.includeCoordinator ? vpc : undefined,
      metricsNamespace: options.metricsNamespace,
      memoryMb: this.sizing.coordinatorMemoryMb,
      timeoutS: this.sizing.coordinatorTimeoutS,
      logRetentionDays: options.logRetentionDays,
      play: options.play,
      exchange: this.exchange,
    });
    const coordinatorFn = this.coordinator.function.fn;

    const usersSecretArn = options.clickhouse?.usersSecretArn;
    this.clickhouseAuthorizer = usersSecretArn
      ? new ClickHouseAuthorizer(this, 'ClickHouseAuthorizer', { usersSecretArn, logRetentionDays: options.logRetentionDays })
      : undefined;
    this.api = new QueryApi(this, 'QueryApi', {
      coordinator: coordinatorFn,
      integrationTimeoutS: this.sizing.integrationTimeoutS,
      throttle: options.throttle,
      jwt: options.jwt,
      logRetentionDays: options.logRetentionDays,
      play: options.play,
      ...(options.clickhouse
        ? {
            clickhouse: {
              ...(this.clickhouseAuthorizer ? { authorizer: this.clickhouseAuthorizer.authorizer } : {}),
              corsOrigins: topology.clickhouseHttp.corsOrigins,
            },
          }
        : {}),
    });

    this.streamingDoor = options.streaming
      ? new StreamingDoor(this, 'StreamingDoor', {
          coordinator: this.coordinator,
          shards: this.shards,
          auth: options.streaming.auth,
          timeoutS: options.streaming.timeoutS,
          exchange: this.exchange,
          ...(options.streaming.auth === 'users' && usersSecretArn ? { usersSecretArn } : {}),
          memoryMb: this.sizing.coordinatorMemoryMb,
          logRetentionDays: options.logRetentionDays,
          vpc: options.vpc?.includeCoordinator ? vpc : undefined,
        })
      : undefined;

    this.schedules = new Schedules(this, 'Schedules', { coordinator: coordinatorFn, schedules: topology.schedules });

    this.alarms = new Alarms(this, 'Alarms', {
      coordinator: coordinatorFn,
      coordinatorServiceName: COORDINATOR_SERVICE_NAME,
      shards: this.shards.map((s) => s.function.fn),
      metricsNamespace: options.metricsNamespace,
      partialRatePercent: options.alarms.partialRatePercent,
      p99LatencyMs: options.alarms.p99LatencyMs ?? topology.query.timeoutMs,
      errorThreshold: options.alarms.errorThreshold,
      alarmTopicArn: options.alarmTopicArn,
    });

    new CfnOutput(this, 'ApiUrl', { value: this.api.url, description: 'POST /query, POST /explain, GET /health' });
    new CfnOutput(this, 'CoordinatorFunction', { value: coordinatorFn.functionName });
    this.shards.forEach((s) => {
      new CfnOutput(this, `Shard${s.index}SecretArn`, {
        value: s.secret.secretArn,
        description: `shard ${s.index} ClickHouse credentials${s.secretCreated ? ' (created by this stack: set this password on the ClickHouse user)' : ''}`,
      });
    });
  }
}
