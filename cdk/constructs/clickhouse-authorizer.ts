// The ClickHouse interface's Lambda authorizer (functions/authorizer/handler.ts): checks ClickHouse
// credentials against the users secret. A simple-response REQUEST authorizer without an identity
// source, because clients send their credentials in different headers (Authorization, or
// X-ClickHouse-User / X-ClickHouse-Key); API Gateway's result cache needs one fixed source, so the
// caching is the function's own (the secret for five minutes, each verified credential for one).
import path from 'node:path';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import { HttpLambdaAuthorizer, HttpLambdaResponseType } from 'aws-cdk-lib/aws-apigatewayv2-authorizers';
import { Duration } from 'aws-cdk-lib';
import { Construct } from 'constructs';
import { PROJECT_ROOT } from '../bundling.js';
import { ScatterFunction } from './scatter-function.js';

export interface ClickHouseAuthorizerProps {
  usersSecretArn: string;
  logRetentionDays: number;
  entry?: string;
}

export const USERS_SECRET_ENV = 'CH_SCATTER_USERS_SECRET_ARN';

export class ClickHouseAuthorizer extends Construct {
  readonly function: ScatterFunction;
  readonly authorizer: HttpLambdaAuthorizer;

  constructor(scope: Construct, id: string, props: ClickHouseAuthorizerProps) {
    super(scope, id);
    this.function = new ScatterFunction(this, 'Lambda', {
      entry: props.entry ?? path.join(PROJECT_ROOT, 'functions/authorizer/handler.ts'),
      description: 'ch-scatter: ClickHouse credentials for the ClickHouse HTTP interface',
      memoryMb: 256,
      timeoutS: 10,
      environment: { [USERS_SECRET_ENV]: props.usersSecretArn },
      logRetentionDays: props.logRetentionDays,
    });
    secretsmanager.Secret.fromSecretCompleteArn(this, 'Users', props.usersSecretArn).grantRead(this.function.role);
    this.authorizer = new HttpLambdaAuthorizer('ClickHouseUsers', this.function.fn, {
      responseTypes: [HttpLambdaResponseType.SIMPLE],
      identitySource: [],
      resultsCacheTtl: Duration.seconds(0),
    });
  }
}
