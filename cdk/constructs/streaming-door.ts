// The streaming front door: a function sharing the coordinator's code (functions/coordinator/
// stream-entry.ts) behind a Lambda Function URL in RESPONSE_STREAM mode, beside the HTTP API. It
// gets the coordinator's environment (topology, shard function names, cursor key) and may invoke
// exactly the shard functions; its timeout is the door's (up to 15 min), not API Gateway's 30 s.
import { CfnOutput, Duration, Stack } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import { Construct } from 'constructs';
import { ENTRY } from '../bundling.js';
import { USERS_SECRET_ENV } from './clickhouse-authorizer.js';
import { PLAY_PAGE_ENV } from '../../functions/coordinator/play-page.js';
import type { Coordinator } from './coordinator.js';
import { ScatterFunction, type ScatterFunctionProps } from './scatter-function.js';
import type { ShardFunction } from './shard-function.js';
import type { ExchangeBucket } from './exchange-bucket.js';

export interface StreamingDoorProps extends Pick<ScatterFunctionProps, 'memoryMb' | 'logRetentionDays' | 'vpc'> {
  coordinator: Coordinator;
  shards: ShardFunction[];
  auth: 'iam' | 'users';
  timeoutS: number;
  usersSecretArn?: string;
  /** The exchange bucket: the door deletes its general-path queries' objects as the coordinator does. */
  exchange?: ExchangeBucket;
}

/** The coordinator's environment without what only its other routes use (the tree's self-invoke, the web console). */
function doorEnvironment(env: Record<string, string>): Record<string, string> {
  const { CH_SCATTER_SELF_FUNCTION: _self, [PLAY_PAGE_ENV]: _play, ...rest } = env;
  return rest;
}

export class StreamingDoor extends Construct {
  readonly function: ScatterFunction;
  readonly url: lambda.FunctionUrl;

  constructor(scope: Construct, id: string, props: StreamingDoorProps) {
    super(scope, id);
    this.function = new ScatterFunction(this, 'Lambda', {
      entry: ENTRY.stream,
      description: "ch-scatter streaming front door: ClickHouse's HTTP interface, answers streamed",
      memoryMb: props.memoryMb,
      timeoutS: props.timeoutS,
      logRetentionDays: props.logRetentionDays,
      vpc: props.vpc,
      environment: { ...doorEnvironment(props.coordinator.environment), ...(props.usersSecretArn ? { [USERS_SECRET_ENV]: props.usersSecretArn } : {}) },
    });
    props.coordinator.cursorKey.grantRead(this.function.role);
    props.exchange?.grantCleanup(this, this.function.role);
    if (props.usersSecretArn) secretsmanager.Secret.fromSecretCompleteArn(this, 'Users', props.usersSecretArn).grantRead(this.function.role);
    if (props.shards.length > 0)
      this.function.role.addToPolicy(
        new iam.PolicyStatement({
          sid: 'InvokeShardFunctions',
          actions: ['lambda:InvokeFunction'],
          resources: props.shards.map((s) => s.function.fn.functionArn),
        }),
      );
    this.url = this.function.fn.addFunctionUrl({
      authType: props.auth === 'iam' ? lambda.FunctionUrlAuthType.AWS_IAM : lambda.FunctionUrlAuthType.NONE,
      invokeMode: lambda.InvokeMode.RESPONSE_STREAM,
    });
    new CfnOutput(Stack.of(this), 'StreamingUrl', {
      value: this.url.url,
      description: `the streaming front door (ClickHouse's HTTP interface; ${props.auth === 'iam' ? 'SigV4-signed requests' : 'ClickHouse credentials'}); up to ${Duration.seconds(props.timeoutS).toMinutes()} min a query`,
    });
  }
}
