// One Lambda per configured shard. It carries that shard's replica endpoints in its environment and may
// read exactly one secret: the shard's ClickHouse credentials. A replica's `secret` names an existing
// secret (imported, never modified); without one the construct creates a secret for the shard whose
// password is generated here, to be set on the ClickHouse user (see docs/deploy.md).
import { RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import { Construct } from 'constructs';
import { ConfigError } from '../../shared/core/config/load.js';
import type { ShardConfig } from '../../shared/core/config/schema.js';
import type { ShardEnv } from '../../functions/shard/env.js';
import { ENTRY } from '../bundling.js';
import { ScatterFunction, type ScatterFunctionProps } from './scatter-function.js';
import type { ExchangeBucket } from './exchange-bucket.js';

export interface ShardFunctionProps extends Pick<ScatterFunctionProps, 'memoryMb' | 'timeoutS' | 'logRetentionDays' | 'vpc'> {
  index: number;
  shard: ShardConfig;
  metricsNamespace: string;
  /** Defaults to functions/shard/handler.ts. */
  entry?: string;
  /** Local tables this function may INSERT into (schedule destinations); nothing else is ever written. */
  writableTables?: string[];
  /** The exchange bucket, and the largest answer or final-stage input this function holds for it (bytes). */
  exchange?: { bucket: ExchangeBucket; maxBytes: number };
  /**
   * Deploy the streaming handler (`streamingHandler`): it answers InvokeWithResponseStream with the
   * engine's bytes and a plain Invoke with its JSON, as Lambda runs a streamified handler for both.
   */
  streaming?: boolean;
}

export const SHARD_SERVICE_NAME = 'ch-scatter-shard';
export const DEFAULT_CLICKHOUSE_USER = 'ch_scatter';

/** Why a shard's replicas cannot share one secret (they name different ones), or undefined. */
export function shardSecretProblem(shard: ShardConfig, index: number): string | undefined {
  const named = [...new Set(shard.replicas.map((r) => r.secret).filter((s): s is string => !!s))];
  if (named.length <= 1) return undefined;
  return (
    `$.shards[${index}].replicas: the replicas of one shard name different secrets (${named.join(', ')}); ` +
    'a shard function reads exactly one credentials secret, so its replicas must share it'
  );
}

/** The one secret a shard's replicas share, or undefined when none is named. */
export function shardSecretName(shard: ShardConfig, index: number): string | undefined {
  const problem = shardSecretProblem(shard, index);
  if (problem) throw new ConfigError([problem]);
  return shard.replicas.find((r) => r.secret)?.secret;
}

function importSecret(scope: Construct, id: string, nameOrArn: string): secretsmanager.ISecret {
  if (!nameOrArn.startsWith('arn:')) return secretsmanager.Secret.fromSecretNameV2(scope, id, nameOrArn);
  // A complete ARN ends in the 6-character suffix Secrets Manager appends to the name.
  return /-[A-Za-z0-9]{6}$/.test(nameOrArn)
    ? secretsmanager.Secret.fromSecretCompleteArn(scope, id, nameOrArn)
    : secretsmanager.Secret.fromSecretPartialArn(scope, id, nameOrArn);
}

export class ShardFunction extends Construct {
  readonly index: number;
  readonly function: ScatterFunction;
  readonly secret: secretsmanager.ISecret;
  readonly secretCreated: boolean;

  constructor(scope: Construct, id: string, props: ShardFunctionProps) {
    super(scope, id);
    this.index = props.index;
    const named = shardSecretName(props.shard, props.index);
    if (named) {
      this.secret = importSecret(this, 'Credentials', named);
      this.secretCreated = false;
    } else {
      const created = new secretsmanager.Secret(this, 'Credentials', {
        description: `ch-scatter shard ${props.index}: ClickHouse credentials {"username","password"}`,
        generateSecretString: {
          secretStringTemplate: JSON.stringify({ username: DEFAULT_CLICKHOUSE_USER }),
          generateStringKey: 'password',
          excludePunctuation: true,
          passwordLength: 32,
        },
        removalPolicy: RemovalPolicy.DESTROY,
      });
      Validations.of(created).acknowledge({
        id: 'AwsSolutions-SMG4',
        reason:
          'The password belongs to a ClickHouse user that ClickHouse itself stores; rotating the secret alone would lock the shard function out. ' +
          'Operators rotate by changing the ClickHouse user and the secret together (docs/deploy.md), or name their own rotated secret in the config.',
      });
      this.secret = created;
      this.secretCreated = true;
    }

    // CH_SCATTER_SHARD as the shard handler parses it (functions/shard/env.ts), the secret's ARN
    // included: the one place the handler looks for it (the stack outputs it for operators).
    const env: ShardEnv = {
      shard: props.index,
      replicas: props.shard.replicas.map((r) => ({ url: r.url! })),
      secretArn: this.secret.secretArn,
    };
    this.function = new ScatterFunction(this, 'Lambda', {
      entry: props.entry ?? ENTRY.shard,
      ...(props.streaming ? { handlerExport: 'streamingHandler' } : {}),
      description: `ch-scatter shard ${props.index}: runs the shard query on its ClickHouse replicas`,
      memoryMb: props.memoryMb,
      timeoutS: props.timeoutS,
      logRetentionDays: props.logRetentionDays,
      vpc: props.vpc,
      environment: {
        // The ARN is a deploy-time token: toJsonString renders it as Fn::Join, JSON.stringify would not.
        CH_SCATTER_SHARD: Stack.of(this).toJsonString(env),
        POWERTOOLS_SERVICE_NAME: SHARD_SERVICE_NAME,
        POWERTOOLS_METRICS_NAMESPACE: props.metricsNamespace,
        // Scheduled rows arrive as insert requests from the coordinator (which holds no credentials).
        ...(props.writableTables?.length ? { CH_SCATTER_WRITABLE_TABLES: props.writableTables.join(',') } : {}),
        ...(props.exchange
          ? {
              CH_SCATTER_EXCHANGE: props.exchange.bucket.environment(this),
              CH_SCATTER_MAX_EXCHANGE_BYTES: String(props.exchange.maxBytes),
            }
          : {}),
      },
    });
    props.exchange?.bucket.grantShard(this, this.function.role, props.index);
    this.secret.grantRead(this.function.role);
    if (named && !named.startsWith('arn:')) {
      Validations.of(this.function.role).acknowledge({
        id: `AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:secretsmanager:<AWS::Region>:<AWS::AccountId>:secret:${named}-??????]`,
        reason: `The secret "${named}" is named without its ARN; Secrets Manager appends a random 6-character suffix, which IAM can only match with "-??????". The pattern matches that one secret name only.`,
      });
    }
  }
}
