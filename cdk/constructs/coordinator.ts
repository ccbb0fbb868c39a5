// The coordinator Lambda: API Gateway and EventBridge call it; it plans a query, invokes the shard
// functions under one deadline and merges their partials. It gets the topology (minus secret names,
// which only shard functions need) and the shard function names in shard order, and may invoke exactly
// those functions: no wildcard, no version/alias suffix. With the aggregation tree (query.treeFanoutAbove
// > 0 and more shards than that) it also invokes ITSELF as a sub-coordinator: the function then gets
// an explicit name, and the policy names that one ARN, built from the name rather than from the
// function's own Arn attribute (a role policy referencing its own function would be a cycle).
import { ArnFormat, Duration, Names, RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import { Construct } from 'constructs';
import { ConfigError } from '../../shared/core/config/load.js';
import type { Topology } from '../../shared/core/config/schema.js';
import { ENTRY, PLAY_PAGE_BUNDLED, PLAY_PAGE_SOURCE } from '../bundling.js';
import { PLAY_PAGE_ENV } from '../../functions/coordinator/play-page.js';
import { ScatterFunction, type ScatterFunctionProps } from './scatter-function.js';
import type { ShardFunction } from './shard-function.js';
import type { ExchangeBucket } from './exchange-bucket.js';

export const COORDINATOR_SERVICE_NAME = 'ch-scatter-coordinator';
/** Lambda rejects a function whose environment (keys + values) exceeds 4 KB. */
export const LAMBDA_ENV_LIMIT_BYTES = 4096;
/** Longest function name CloudFormation may generate (Lambda's limit). */
const MAX_FUNCTION_NAME = 64;

export interface CoordinatorProps extends Pick<ScatterFunctionProps, 'memoryMb' | 'timeoutS' | 'logRetentionDays' | 'vpc'> {
  topology: Topology;
  shards: ShardFunction[];
  metricsNamespace: string;
  /** Defaults to functions/coordinator/handler.ts. */
  entry?: string;
  /** Ship the web console's page and answer GET /play with it (the route itself is the API's). */
  play?: boolean;
  /** The exchange bucket, whose query objects the coordinator deletes when a query ends. */
  exchange?: ExchangeBucket;
}

/** The topology as the coordinator sees it: validated, defaults filled, no secret names. */
export function coordinatorTopology(topology: Topology): Topology {
  return {
    ...topology,
    shards: topology.shards.map((s) => ({ ...s, replicas: s.replicas.map(({ secret: _secret, ...r }) => r) })),
  };
}

function treeApplies(topology: Topology, shardCount: number): boolean {
  const above = topology.query.treeFanoutAbove;
  return above > 0 && shardCount > above;
}

/**
 * Lambda refuses a function whose environment exceeds 4 KB, and the coordinator's carries the whole
 * topology plus every shard function's name (unknown until deployment: the longest name Lambda allows
 * is budgeted). Undefined when it fits.
 */
export function coordinatorEnvironmentProblem(topology: Topology, shardCount: number, metricsNamespace: string, play = false): string | undefined {
  const topologyJson = JSON.stringify(coordinatorTopology(topology));
  const fixed: Record<string, string> = {
    NODE_OPTIONS: '--enable-source-maps',
    CH_SCATTER_TOPOLOGY: topologyJson,
    POWERTOOLS_SERVICE_NAME: COORDINATOR_SERVICE_NAME,
    POWERTOOLS_METRICS_NAMESPACE: metricsNamespace,
  };
  const namesBudget = 2 + shardCount * (MAX_FUNCTION_NAME + 3);
  const size =
    Object.entries(fixed).reduce((n, [k, v]) => n + Buffer.byteLength(k) + Buffer.byteLength(v), 0) +
    'CH_SCATTER_SHARD_FUNCTIONS'.length +
    'CH_SCATTER_CURSOR_SECRET_ARN'.length +
    160 + // the cursor key secret's ARN
    'CH_SCATTER_EXCHANGE'.length +
    128 + // the exchange's bucket (at most 63 characters) and region as JSON
    namesBudget +
    (treeApplies(topology, shardCount) ? 'CH_SCATTER_SELF_FUNCTION'.length + MAX_FUNCTION_NAME : 0) +
    (play ? PLAY_PAGE_ENV.length + PLAY_PAGE_BUNDLED.length : 0);
  if (size <= LAMBDA_ENV_LIMIT_BYTES) return undefined;
  return (
    `$: the coordinator environment would take up to ${size} bytes (topology JSON ${Buffer.byteLength(topologyJson)} bytes, ` +
    `${shardCount} shard function names), above Lambda's ${LAMBDA_ENV_LIMIT_BYTES}-byte limit; shorten table names or replica URLs, or use fewer shards`
  );
}

export class Coordinator extends Construct {
  readonly function: ScatterFunction;
  /** Set when the aggregation tree applies: the function's explicit name, which it invokes itself by. */
  readonly selfFunctionName: string | undefined;
  /** What its environment holds (the streaming door plans and fans out with the same). */
  readonly environment: Record<string, string>;
  /** The cursor signing key (the streaming door reads it too). */
  readonly cursorKey: secretsmanager.Secret;

  constructor(scope: Construct, id: string, props: CoordinatorProps) {
    super(scope, id);
    const problem = coordinatorEnvironmentProblem(props.topology, props.shards.length, props.metricsNamespace, props.play);
    if (problem) throw new ConfigError([problem]);
    const topologyJson = JSON.stringify(coordinatorTopology(props.topology));
    const tree = treeApplies(props.topology, props.shards.length);

    // The key pagination cursors are signed with: every coordinator container must share it (a cursor
    // issued by one is continued by another), and no client may learn it.
    const cursorKey = new secretsmanager.Secret(this, 'CursorKey', {
      description: 'ch-scatter coordinator: the HMAC key pagination cursors are signed with',
      generateSecretString: { excludePunctuation: true, passwordLength: 48 },
      removalPolicy: RemovalPolicy.DESTROY,
    });
    Validations.of(cursorKey).acknowledge({
      id: 'AwsSolutions-SMG4',
      reason:
        'Rotating the cursor key only invalidates the cursors of pages in flight (clients start the query again); operators rotate it by a new value when they wish.',
    });
    const names = props.shards.map((s) => s.function.fn.functionName);
    // Deterministic and unique per stack and construct path, within Lambda's 64 characters.
    const selfName = tree ? Names.uniqueResourceName(this, { maxLength: MAX_FUNCTION_NAME, separator: '-' }) : undefined;
    this.selfFunctionName = selfName;
    this.cursorKey = cursorKey;
    this.environment = {
      CH_SCATTER_TOPOLOGY: topologyJson,
      CH_SCATTER_SHARD_FUNCTIONS: Stack.of(this).toJsonString(names),
      POWERTOOLS_SERVICE_NAME: COORDINATOR_SERVICE_NAME,
      POWERTOOLS_METRICS_NAMESPACE: props.metricsNamespace,
      ...(selfName ? { CH_SCATTER_SELF_FUNCTION: selfName } : {}),
      ...(props.play ? { [PLAY_PAGE_ENV]: PLAY_PAGE_BUNDLED } : {}),
      CH_SCATTER_CURSOR_SECRET_ARN: cursorKey.secretArn,
      ...(props.exchange ? { CH_SCATTER_EXCHANGE: props.exchange.environment(this) } : {}),
    };
    this.function = new ScatterFunction(this, 'Lambda', {
      ...(selfName ? { functionName: selfName } : {}),
      entry: props.entry ?? ENTRY.coordinator,
      description: 'ch-scatter coordinator: plans, fans out to the shard functions, merges partials',
      memoryMb: props.memoryMb,
      timeoutS: props.timeoutS,
      logRetentionDays: props.logRetentionDays,
      vpc: props.vpc,
      ...(props.play ? { copyFiles: { [PLAY_PAGE_BUNDLED]: PLAY_PAGE_SOURCE } } : {}),
      environment: this.environment,
    });
    cursorKey.grantRead(this.function.role);
    props.exchange?.grantCleanup(this, this.function.role);
    if (selfName) {
      this.function.role.addToPolicy(
        new iam.PolicyStatement({
          sid: 'InvokeSelfAsSubCoordinator',
          actions: ['lambda:InvokeFunction'],
          resources: [Stack.of(this).formatArn({ service: 'lambda', resource: 'function', resourceName: selfName, arnFormat: ArnFormat.COLON_RESOURCE_NAME })],
        }),
      );
    }
    if (props.shards.length > 0) {
      this.function.role.addToPolicy(
        new iam.PolicyStatement({
          sid: 'InvokeShardFunctions',
          actions: ['lambda:InvokeFunction'],
          resources: props.shards.map((s) => s.function.fn.functionArn),
        }),
      );
    }
    // A scheduled query runs once per EventBridge event; Lambda's default async retries would run a
    // rollup (and write its rows) up to three times after an error, so async invocations are not retried.
    this.function.fn.configureAsyncInvoke({ retryAttempts: 0, maxEventAge: Duration.hours(1) });
  }
}
