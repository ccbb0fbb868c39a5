// The public face: an HTTP API (API Gateway v2) with POST /query, POST /explain and GET /health (and,
// with the `play` deploy option, GET /play: the web console), all going to the coordinator. Every route is authorized: IAM (SigV4-signed requests) unless a JWT issuer
// is configured, in which case every route takes a bearer token from that issuer instead. The $default
// stage is throttled and writes JSON access logs to its own log group.
import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import * as apigw from 'aws-cdk-lib/aws-apigatewayv2';
import { AccessLogFormat } from 'aws-cdk-lib/aws-apigateway';
import { HttpIamAuthorizer, HttpJwtAuthorizer } from 'aws-cdk-lib/aws-apigatewayv2-authorizers';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import * as logs from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import type { DeployOptions } from '../deploy-options.js';
import { CORS_EXPOSE_HEADERS } from '../../shared/core/clickhouse-http/cors.js';

export const ROUTES = [
  { method: apigw.HttpMethod.POST, path: '/query' },
  { method: apigw.HttpMethod.POST, path: '/explain' },
  { method: apigw.HttpMethod.GET, path: '/health' },
] as const;
/** The web console's page: only with the `play` deploy option. */
export const PLAY_ROUTE = { method: apigw.HttpMethod.GET, path: '/play' } as const;
/** ClickHouse's HTTP interface: only with the `clickhouse` deploy option. */
export const CLICKHOUSE_ROUTES = [
  { method: apigw.HttpMethod.GET, path: '/' },
  { method: apigw.HttpMethod.POST, path: '/' },
  { method: apigw.HttpMethod.HEAD, path: '/' },
  { method: apigw.HttpMethod.GET, path: '/ping' },
  { method: apigw.HttpMethod.GET, path: '/replicas_status' },
] as const;

export interface QueryApiProps {
  coordinator: lambda.IFunction;
  integrationTimeoutS: number;
  throttle: DeployOptions['throttle'];
  jwt?: DeployOptions['jwt'];
  logRetentionDays: number;
  /** Add GET /play, behind the same authorizer as every other route. */
  play?: boolean;
  /**
   * Add ClickHouse's HTTP interface routes. `authorizer`: a Lambda authorizer for them (ClickHouse
   * credentials); absent, they take the API's own authorizer.
   */
  clickhouse?: { authorizer?: apigw.IHttpRouteAuthorizer; corsOrigins?: readonly string[] };
}

// HTTP APIs support a subset of $context variables; these are all valid for them.
const ACCESS_LOG_FIELDS = {
  requestId: '$context.requestId',
  ip: '$context.identity.sourceIp',
  caller: '$context.identity.caller',
  user: '$context.identity.user',
  jwtSub: '$context.authorizer.claims.sub',
  requestTime: '$context.requestTime',
  routeKey: '$context.routeKey',
  status: '$context.status',
  protocol: '$context.protocol',
  responseLength: '$context.responseLength',
  responseLatency: '$context.responseLatency',
  integrationLatency: '$context.integrationLatency',
  integrationError: '$context.integrationErrorMessage',
  authorizerError: '$context.authorizer.error',
};

export class QueryApi extends Construct {
  readonly api: apigw.HttpApi;
  readonly stage: apigw.HttpStage;
  readonly accessLogs: logs.LogGroup;

  constructor(scope: Construct, id: string, props: QueryApiProps) {
    super(scope, id);
    const corsOrigins = props.clickhouse?.corsOrigins ?? [];
    this.api = new apigw.HttpApi(this, 'Api', {
      description: 'ch-scatter: scatter-gather SELECT over sharded ClickHouse',
      createDefaultStage: false,
      // A browser's preflight carries no credentials: API Gateway answers it before any authorizer,
      // for the topology's allowed origins (clickhouseHttp.corsOrigins), as the interface does locally.
      ...(corsOrigins.length > 0
        ? {
            corsPreflight: {
              allowOrigins: [...corsOrigins],
              allowMethods: [apigw.CorsHttpMethod.GET, apigw.CorsHttpMethod.POST, apigw.CorsHttpMethod.OPTIONS],
              allowHeaders: ['authorization', 'content-type', 'x-clickhouse-format', 'x-clickhouse-user', 'x-clickhouse-key', 'x-requested-with'],
              exposeHeaders: [...CORS_EXPOSE_HEADERS],
              maxAge: Duration.days(1),
            },
          }
        : {}),
    });
    this.accessLogs = new logs.LogGroup(this, 'AccessLogs', {
      retention: props.logRetentionDays as logs.RetentionDays,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    this.stage = new apigw.HttpStage(this, 'DefaultStage', {
      httpApi: this.api,
      stageName: '$default',
      autoDeploy: true,
      throttle: { rateLimit: props.throttle.rateLimit, burstLimit: props.throttle.burstLimit },
      accessLogSettings: {
        destination: new apigw.LogGroupLogDestination(this.accessLogs),
        format: AccessLogFormat.custom(JSON.stringify(ACCESS_LOG_FIELDS)),
      },
    });

    const authorizer: apigw.IHttpRouteAuthorizer = props.jwt
      ? new HttpJwtAuthorizer('Jwt', props.jwt.issuer, {
          jwtAudience: props.jwt.audience,
          ...(props.jwt.identitySource ? { identitySource: props.jwt.identitySource } : {}),
        })
      : new HttpIamAuthorizer();
    const integration = new HttpLambdaIntegration('Coordinator', props.coordinator, {
      payloadFormatVersion: apigw.PayloadFormatVersion.VERSION_2_0,
      timeout: Duration.seconds(props.integrationTimeoutS),
    });
    for (const r of props.play ? [...ROUTES, PLAY_ROUTE] : ROUTES) {
      this.api.addRoutes({ path: r.path, methods: [r.method], integration, authorizer });
    }
    if (props.clickhouse) {
      for (const r of CLICKHOUSE_ROUTES) {
        this.api.addRoutes({ path: r.path, methods: [r.method], integration, authorizer: props.clickhouse.authorizer ?? authorizer });
      }
    }
  }

  /** The invoke URL of the $default stage. */
  get url(): string {
    return this.stage.url;
  }
}
