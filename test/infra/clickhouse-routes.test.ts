// The `clickhouse` deploy option: off by default; on, `GET /`, `POST /` and `GET /ping` join the
// API on the coordinator's integration, behind a Lambda authorizer that reads the users secret
// (least privilege: that secret only), or behind the API's own authorizer when no secret is given.
import { describe, expect, it } from 'vitest';
import { awsExample, build, resourcesOf } from './support.js';
import { parseDeployOptions } from '../../cdk/deploy-options.js';
import { scheduleWriteTables } from '../../cdk/stack.js';
import { parseTopology } from '../../shared/core/config/load.js';

const ROUTE = 'AWS::ApiGatewayV2::Route';
const AUTHZ = 'AWS::ApiGatewayV2::Authorizer';
const SECRET = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:ch-users-AbCdEf';

const routeKeys = (t: ReturnType<typeof build>['template']) =>
  Object.values(resourcesOf(t, ROUTE))
    .map((r) => r.Properties.RouteKey)
    .sort();

describe('the clickhouse deploy option', () => {
  it('is off by default: no / or /ping route', () => {
    expect(parseDeployOptions(() => undefined).clickhouse).toBeUndefined();
    expect(routeKeys(build(awsExample()).template)).toEqual(['GET /health', 'POST /explain', 'POST /query']);
  });

  it('with a users secret: the three routes behind a simple-response Lambda authorizer that may read only that secret', () => {
    const b = build(awsExample(), { clickhouse: JSON.stringify({ usersSecretArn: SECRET }) });
    expect(routeKeys(b.template)).toEqual(['GET /', 'GET /health', 'GET /ping', 'GET /replicas_status', 'HEAD /', 'POST /', 'POST /explain', 'POST /query']);
    const routes = Object.values(resourcesOf(b.template, ROUTE));
    const query = routes.find((r) => r.Properties.RouteKey === 'POST /query')!;
    for (const key of ['GET /', 'HEAD /', 'POST /', 'GET /ping', 'GET /replicas_status']) {
      const r = routes.find((x) => x.Properties.RouteKey === key)!;
      expect(r.Properties.AuthorizationType).toBe('CUSTOM');
      expect(r.Properties.Target).toEqual(query.Properties.Target);
    }
    expect(query.Properties.AuthorizationType).toBe('AWS_IAM');
    const [authz] = Object.values(resourcesOf(b.template, AUTHZ));
    expect(authz!.Properties).toMatchObject({ AuthorizerType: 'REQUEST', EnableSimpleResponses: true, AuthorizerPayloadFormatVersion: '2.0' });
    const policies = Object.values(resourcesOf(b.template, 'AWS::IAM::Policy'));
    const reads = policies.flatMap((p) =>
      (p.Properties.PolicyDocument.Statement as { Action: string | string[]; Resource: unknown }[]).filter((s) =>
        [s.Action].flat().includes('secretsmanager:GetSecretValue'),
      ),
    );
    expect(reads.some((s) => JSON.stringify(s.Resource).includes('ch-users-AbCdEf'))).toBe(true);
    const fns = Object.values(resourcesOf(b.template, 'AWS::Lambda::Function'));
    expect(fns.some((f) => f.Properties.Environment?.Variables?.CH_SCATTER_USERS_SECRET_ARN === SECRET)).toBe(true);
  });

  it('without a secret and with a JWT issuer: the routes take the JWT authorizer (bearer tokens)', () => {
    const b = build(awsExample(), { clickhouse: '{}', jwt: '{"issuer":"https://auth.example.com/","audience":["ch-scatter"]}' });
    const routes = Object.values(resourcesOf(b.template, ROUTE));
    expect(routes).toHaveLength(8);
    for (const r of routes) expect(r.Properties.AuthorizationType).toBe('JWT');
    expect(Object.values(resourcesOf(b.template, AUTHZ))).toHaveLength(1);
  });

  it("the topology's CORS origins: API Gateway answers the preflight (no authorizer) and exposes the interface's headers", () => {
    const topo = awsExample();
    const b = build({ ...topo, clickhouseHttp: { ...topo.clickhouseHttp, corsOrigins: ['https://grafana.example.com'] } }, { clickhouse: '{}' });
    const [api] = Object.values(resourcesOf(b.template, 'AWS::ApiGatewayV2::Api'));
    expect(api!.Properties.CorsConfiguration).toMatchObject({
      AllowOrigins: ['https://grafana.example.com'],
      AllowMethods: ['GET', 'POST', 'OPTIONS'],
      ExposeHeaders: expect.arrayContaining(['X-ClickHouse-Summary', 'X-ClickHouse-Exception-Code']),
      MaxAge: 86400,
    });
    expect(
      Object.values(resourcesOf(build(awsExample(), { clickhouse: '{}' }).template, 'AWS::ApiGatewayV2::Api'))[0]!.Properties.CorsConfiguration,
    ).toBeUndefined();
  });

  it('refuses a secret ARN that is not one', () => {
    expect(() => parseDeployOptions((k) => (k === 'clickhouse' ? '{"usersSecretArn":"users"}' : undefined))).toThrow(/context clickhouse\.usersSecretArn/);
  });

  it('tables marked "insert": true are writable by the shard functions', () => {
    const topo = parseTopology({
      cluster: 'c',
      shards: [{ replicas: [{ url: 'http://a:8123' }] }],
      tables: {
        'db.a_dist': { local: 'db.a', shardingKey: { column: 'k', type: 'UInt64', function: 'identity' }, insert: true },
        'db.b_dist': { local: 'db.b', shardingKey: { column: 'k', type: 'UInt64', function: 'identity' } },
      },
    });
    expect(scheduleWriteTables(topo)).toEqual(['db.a']);
  });
});

describe('cdk-nag with the ClickHouse routes', () => {
  it('finds nothing unacknowledged with the users-secret authorizer', async () => {
    const { AwsSolutionsChecks } = await import('cdk-nag');
    const { app, stack } = build(awsExample(), { clickhouse: { usersSecretArn: SECRET } });
    const report = new AwsSolutionsChecks(app).validateScope(stack);
    expect(report.violations.map((v) => `${v.ruleName} ${v.violatingResources.map((r) => r.constructPath).join(',')}`)).toEqual([]);
  });
});
