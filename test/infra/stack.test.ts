// Assertions on the synthesized template: what the issue asks the CDK app to guarantee.
import { beforeAll, describe, expect, it } from 'vitest';
import { Match } from 'aws-cdk-lib/assertions';
import { ConfigError, parseTopology } from '../../shared/core/config/load.js';
import { parseShardEnv } from '../../functions/shard/env.js';
import { awsExample, build, logicalId, render, resourcesOf, type Built } from './support.js';

const FN = 'AWS::Lambda::Function';
const POLICY = 'AWS::IAM::Policy';

function statements(b: Built): { policy: string; s: any }[] {
  return Object.entries(resourcesOf(b.template, POLICY)).flatMap(([policy, r]) => (r.Properties.PolicyDocument.Statement as any[]).map((s) => ({ policy, s })));
}
const asArray = <T>(v: T | T[]): T[] => (Array.isArray(v) ? v : [v]);

describe('the AWS example (4 shards, IAM auth, one schedule)', () => {
  let b: Built;
  let shardFns: string[];
  let coordinatorFn: string;
  beforeAll(() => {
    b = build(awsExample());
    shardFns = [0, 1, 2, 3].map((i) => logicalId(b.template, FN, `Shard${i}LambdaFunction`));
    coordinatorFn = logicalId(b.template, FN, 'CoordinatorLambdaFunction');
  });

  it('has one function per shard plus the coordinator, all Node 22 on ARM64, with derived timeouts', () => {
    b.template.resourceCountIs(FN, 5);
    for (const r of Object.values(resourcesOf(b.template, FN))) {
      expect(r.Properties.Runtime).toBe('nodejs22.x');
      expect(r.Properties.Architectures).toEqual(['arm64']);
      expect(r.Properties.Handler).toBe('index.handler');
      expect(r.Properties.TracingConfig).toEqual({ Mode: 'Active' });
    }
    const fns = resourcesOf(b.template, FN);
    expect(fns[coordinatorFn]!.Properties.Timeout).toBe(9);
    expect(fns[coordinatorFn]!.Properties.MemorySize).toBe(1024);
    for (const id of shardFns) expect(fns[id]!.Properties.Timeout).toBe(6);
    for (const id of shardFns) expect(fns[id]!.Properties.MemorySize).toBe(256);
  });

  it('gives shard i its index, its replica URLs and its own secret ARN', () => {
    const fns = resourcesOf(b.template, FN);
    const cfg = awsExample();
    shardFns.forEach((id, i) => {
      const env = fns[id]!.Properties.Environment.Variables;
      const shardEnv = JSON.parse(render(env.CH_SCATTER_SHARD));
      const secretArn = shardEnv.secretArn;
      expect(shardEnv).toEqual({
        shard: i,
        replicas: cfg.shards[i].replicas.map((r: any) => ({ url: r.url })),
        secretArn: expect.any(String),
      });
      // The ARN travels once, where the handler reads it (test/infra/env-contract.test.ts).
      expect(env.CH_SCATTER_SECRET_ARN).toBeUndefined();
      // What the CDK app writes is what the shard handler reads (one definition: functions/shard/env.ts).
      expect(parseShardEnv(render(env.CH_SCATTER_SHARD)).shard).toBe(i);
      expect(env.POWERTOOLS_SERVICE_NAME).toBe('ch-scatter-shard');
      expect(env.POWERTOOLS_METRICS_NAMESPACE).toBe('ChScatter');
      // Scheduled rows arrive as inserts from the coordinator: only the destination's local table is writable.
      expect(env.CH_SCATTER_WRITABLE_TABLES).toBe('analytics.sensor_rollups_hourly');
      if (i === 0) {
        // Named in the config: imported by name, never created.
        expect(secretArn).toBe('arn:<Ref:AWS::Partition>:secretsmanager:<Ref:AWS::Region>:<Ref:AWS::AccountId>:secret:ch-scatter/sensors/shard-0');
      } else {
        expect(secretArn).toBe(`<Ref:${logicalId(b.template, 'AWS::SecretsManager::Secret', `Shard${i}Credentials`)}>`);
      }
    });
    // Shards 1..3 name no secret: the stack creates exactly those three.
    b.template.resourceCountIs('AWS::SecretsManager::Secret', 3 + 1); // + the coordinator's cursor key
  });

  it('has one exchange bucket: encrypted, no public access, TLS only, objects expired after a day; shard i writes only under its own prefix; only the coordinator deletes', () => {
    const buckets = resourcesOf(b.template, 'AWS::S3::Bucket');
    expect(Object.keys(buckets)).toHaveLength(1);
    const [bucketId, bucket] = Object.entries(buckets)[0]!;
    expect(bucket.Properties.BucketEncryption.ServerSideEncryptionConfiguration[0].ServerSideEncryptionByDefault.SSEAlgorithm).toBe('AES256');
    expect(bucket.Properties.PublicAccessBlockConfiguration).toEqual({
      BlockPublicAcls: true,
      BlockPublicPolicy: true,
      IgnorePublicAcls: true,
      RestrictPublicBuckets: true,
    });
    expect(bucket.Properties.LifecycleConfiguration.Rules).toEqual([expect.objectContaining({ Prefix: 'q/', ExpirationInDays: 1, Status: 'Enabled' })]);
    const bucketPolicy = Object.values(resourcesOf(b.template, 'AWS::S3::BucketPolicy'))[0]!;
    expect(bucketPolicy.Properties.PolicyDocument.Statement).toContainEqual(
      expect.objectContaining({ Effect: 'Deny', Action: 's3:*', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
    );
    const fns = resourcesOf(b.template, FN);
    for (const id of shardFns) {
      const env = fns[id]!.Properties.Environment.Variables;
      expect(render(env.CH_SCATTER_EXCHANGE)).toContain(`"bucket":"<Ref:${bucketId}>"`);
      expect(env.CH_SCATTER_MAX_EXCHANGE_BYTES).toBe(String(64 * 1024 * 1024));
    }
    const writes = statements(b).filter(({ s }) => asArray(s.Action).includes('s3:PutObject'));
    expect(writes).toHaveLength(4);
    for (const [i] of shardFns.entries()) {
      const own = writes.filter(({ s }) => render(s.Resource).includes(`/q/*/s${i}/*`));
      expect(own, `shard ${i}`).toHaveLength(1);
      expect(asArray(own[0]!.s.Action)).toEqual(['s3:PutObject']);
    }
    // The coordinator deletes a query's objects with its own rights (delete only, on q/*), so no shard
    // function is invoked for the cleanup; it is in the coordinator's environment, as the bucket.
    const deletes = statements(b).filter(({ s }) => asArray(s.Action).includes('s3:DeleteObject'));
    expect(deletes).toHaveLength(1);
    expect(asArray(deletes[0]!.s.Action)).toEqual(['s3:DeleteObject']);
    expect(render(deletes[0]!.s.Resource)).toMatch(/\/q\/\*"?$/);
    const coordinatorRole = fns[coordinatorFn]!.Properties.Role['Fn::GetAtt'][0];
    const policy = resourcesOf(b.template, POLICY)[deletes[0]!.policy]!;
    expect(policy.Properties.Roles).toEqual([{ Ref: coordinatorRole }]);
    expect(render(fns[coordinatorFn]!.Properties.Environment.Variables.CH_SCATTER_EXCHANGE)).toContain(`"bucket":"<Ref:${bucketId}>"`);
    // Nothing else in the stack may write to the bucket or delete from it.
    expect(statements(b).filter(({ s }) => asArray(s.Action).some((a: string) => /^s3:(Put|Delete|\*)/.test(a)) && s.Effect === 'Allow')).toHaveLength(5);
  });

  it("sizes the exchange's bounds to the shard functions' memory: theirs and the coordinator's final-stage bound", () => {
    const small = build(awsExample(), { memory: { shardMb: 128 } });
    const fns = resourcesOf(small.template, FN);
    const shard0 = fns[logicalId(small.template, FN, 'Shard0LambdaFunction')]!.Properties.Environment.Variables;
    expect(shard0.CH_SCATTER_MAX_EXCHANGE_BYTES).toBe(String(32 * 1024 * 1024));
    const coordinator = fns[logicalId(small.template, FN, 'CoordinatorLambdaFunction')]!.Properties.Environment.Variables;
    expect(JSON.parse(coordinator.CH_SCATTER_TOPOLOGY).query.maxFinalStageBytes).toBe(32 * 1024 * 1024);
  });

  it('gives the coordinator the topology without secret names and the shard function names in shard order', () => {
    const env = resourcesOf(b.template, FN)[coordinatorFn]!.Properties.Environment.Variables;
    const expected = JSON.parse(JSON.stringify(parseTopology(awsExample())));
    for (const s of expected.shards) for (const r of s.replicas) delete r.secret;
    expect(JSON.parse(env.CH_SCATTER_TOPOLOGY)).toEqual(expected);
    expect(env.CH_SCATTER_TOPOLOGY).not.toContain('secret');
    // The coordinator re-validates what it is given (functions/coordinator/topology-env.ts): it must round-trip.
    expect(parseTopology(JSON.parse(env.CH_SCATTER_TOPOLOGY))).toEqual(expected);
    expect(env.POWERTOOLS_SERVICE_NAME).toBe('ch-scatter-coordinator');
    expect(env.POWERTOOLS_METRICS_NAMESPACE).toBe('ChScatter');
    // ["name0","name1",...] with the names resolved at deploy time (Ref of a function = its name).
    expect(JSON.parse(render(env.CH_SCATTER_SHARD_FUNCTIONS))).toEqual(shardFns.map((id) => `<Ref:${id}>`));
  });

  it('lets the coordinator invoke exactly its shard functions, and nothing else invoke any function', () => {
    const invoke = statements(b).filter(({ s }) => asArray(s.Action).some((a: string) => a.startsWith('lambda:')));
    expect(invoke).toHaveLength(1);
    expect(invoke[0]!.policy).toBe(logicalId(b.template, POLICY, 'CoordinatorLambdaRoleDefaultPolicy'));
    expect(invoke[0]!.s.Action).toBe('lambda:InvokeFunction');
    expect(invoke[0]!.s.Resource).toEqual(shardFns.map((id) => ({ 'Fn::GetAtt': [id, 'Arn'] })));
  });

  it('lets each shard function read exactly its own secret, and the coordinator only its cursor key', () => {
    const all = statements(b).filter(({ s }) => asArray(s.Action).some((a: string) => a.startsWith('secretsmanager:')));
    const coord = all.filter(({ policy }) => policy.startsWith('Coordinator'));
    expect(coord).toHaveLength(1);
    expect(coord[0]!.s.Resource).toEqual({ Ref: logicalId(b.template, 'AWS::SecretsManager::Secret', 'CoordinatorCursorKey') });
    const reads = all.filter(({ policy }) => !policy.startsWith('Coordinator'));
    expect(reads).toHaveLength(4);
    for (let i = 1; i < 4; i++) {
      const mine = reads.filter(({ policy }) => policy.startsWith(`Shard${i}LambdaRole`));
      expect(mine).toHaveLength(1);
      expect(mine[0]!.s.Resource).toEqual({ Ref: logicalId(b.template, 'AWS::SecretsManager::Secret', `Shard${i}Credentials`) });
      expect(mine[0]!.s.Action).toEqual(['secretsmanager:GetSecretValue', 'secretsmanager:DescribeSecret']);
    }
    const shard0 = reads.filter(({ policy }) => policy.startsWith('Shard0LambdaRole'));
    expect(JSON.stringify(shard0[0]!.s.Resource)).toContain(':secret:ch-scatter/sensors/shard-0-??????');
  });

  it('uses no AWS managed policy and writes each function log to its own log group with retention', () => {
    for (const r of Object.values(resourcesOf(b.template, 'AWS::IAM::Role'))) expect(r.Properties.ManagedPolicyArns).toBeUndefined();
    const groups = resourcesOf(b.template, 'AWS::Logs::LogGroup');
    expect(Object.keys(groups)).toHaveLength(6); // 5 functions + API access logs
    for (const g of Object.values(groups)) expect(g.Properties.RetentionInDays).toBe(30);
    for (const r of Object.values(resourcesOf(b.template, FN)))
      expect(r.Properties.LoggingConfig.LogGroup).toEqual({ Ref: expect.stringMatching(/LambdaLogs/) });
  });

  it('serves POST /query, POST /explain and GET /health, all IAM-authorized, through one throttled, logged stage', () => {
    const routes = Object.values(resourcesOf(b.template, 'AWS::ApiGatewayV2::Route'));
    expect(routes.map((r) => r.Properties.RouteKey).sort()).toEqual(['GET /health', 'POST /explain', 'POST /query']);
    for (const r of routes) expect(r.Properties.AuthorizationType).toBe('AWS_IAM');
    b.template.resourceCountIs('AWS::ApiGatewayV2::Authorizer', 0);
    b.template.hasResourceProperties('AWS::ApiGatewayV2::Integration', {
      IntegrationType: 'AWS_PROXY',
      PayloadFormatVersion: '2.0',
      TimeoutInMillis: 10_000,
      IntegrationUri: { 'Fn::GetAtt': [coordinatorFn, 'Arn'] },
    });
    b.template.resourceCountIs('AWS::ApiGatewayV2::Stage', 1);
    b.template.hasResourceProperties('AWS::ApiGatewayV2::Stage', {
      StageName: '$default',
      AutoDeploy: true,
      DefaultRouteSettings: { ThrottlingRateLimit: 50, ThrottlingBurstLimit: 100 },
      AccessLogSettings: {
        DestinationArn: { 'Fn::GetAtt': [logicalId(b.template, 'AWS::Logs::LogGroup', 'QueryApiAccessLogs'), 'Arn'] },
        Format: Match.stringLikeRegexp('\\$context\\.requestId'),
      },
    });
  });

  it('runs each schedule through one EventBridge rule that sends the coordinator its name, without async retries', () => {
    b.template.resourceCountIs('AWS::Events::Rule', 1);
    b.template.hasResourceProperties('AWS::Events::Rule', {
      ScheduleExpression: 'rate(1 hour)',
      Targets: [{ Arn: { 'Fn::GetAtt': [coordinatorFn, 'Arn'] }, Input: JSON.stringify({ kind: 'ch-scatter.schedule', name: 'hourly-rollup' }) }],
    });
    b.template.hasResourceProperties('AWS::Lambda::Permission', { Principal: 'events.amazonaws.com', FunctionName: { 'Fn::GetAtt': [coordinatorFn, 'Arn'] } });
    b.template.hasResourceProperties('AWS::Lambda::EventInvokeConfig', { FunctionName: { Ref: coordinatorFn }, MaximumRetryAttempts: 0 });
  });

  it('alarms on errors and throttles of every function, the partial-result rate and p99 latency', () => {
    const alarms = Object.values(resourcesOf(b.template, 'AWS::CloudWatch::Alarm'));
    expect(alarms).toHaveLength(2 * 5 + 2);
    for (const fn of [coordinatorFn, ...shardFns]) {
      for (const metric of ['Errors', 'Throttles']) {
        expect(alarms.filter((a) => a.Properties.MetricName === metric && a.Properties.Dimensions?.[0]?.Value?.Ref === fn)).toHaveLength(1);
      }
    }
    const rate = alarms.find((a) => a.Properties.Metrics)!;
    const partial = rate.Properties.Metrics.find((m: any) => m.Id === 'partial');
    expect(partial.MetricStat.Metric).toEqual({
      Namespace: 'ChScatter',
      MetricName: 'PartialResults',
      Dimensions: [{ Name: 'service', Value: 'ch-scatter-coordinator' }],
    });
    expect(rate.Properties.Threshold).toBe(5);
    const p99 = alarms.find((a) => a.Properties.ExtendedStatistic === 'p99')!;
    expect(p99.Properties.MetricName).toBe('Duration');
    expect(p99.Properties.Threshold).toBe(5000);
    for (const a of alarms) expect(a.Properties.AlarmActions).toBeUndefined();
  });
});

describe('one shard, two schedules, JWT, a VPC and an alarm topic', () => {
  const topic = 'arn:aws:sns:eu-west-1:123456789012:ops-alarms';
  let b: Built;
  beforeAll(() => {
    const cfg = awsExample();
    cfg.shards = [{ replicas: [{ url: 'http://10.0.1.10:8123' }] }];
    cfg.query = { timeoutMs: 1500 };
    cfg.schedules = [
      { name: 'a', schedule: 'rate(5 minutes)', sql: 'SELECT 1', destination: { table: 't1' } },
      { name: 'b', schedule: 'cron(0 3 * * ? *)', sql: 'SELECT 2', destination: { table: 't2' } },
    ];
    cfg.tables.t1 = { local: 't1_local', shardingKey: { column: 'k', type: 'UInt64', function: 'identity' } };
    cfg.tables['other.t2'] = { local: 'other.t2_local', shardingKey: { column: 'k', type: 'UInt64', function: 'identity' } };
    cfg.schedules[1].destination.table = 'other.t2';
    b = build(cfg, {
      jwt: '{"issuer":"https://auth.example.com/","audience":["ch-scatter"]}',
      vpc: { vpcId: 'vpc-0123abcd', subnetIds: ['subnet-0123abcd', 'subnet-89abcdef'], securityGroupIds: ['sg-0123456789abcdef0'] },
      alarmTopicArn: topic,
      logRetentionDays: '90',
      throttle: { rateLimit: 10, burstLimit: 20 },
    });
  });

  it('scales resources with the shard and schedule counts', () => {
    b.template.resourceCountIs(FN, 2);
    b.template.resourceCountIs('AWS::SecretsManager::Secret', 1 + 1); // + the coordinator's cursor key
    b.template.resourceCountIs('AWS::Events::Rule', 2);
    b.template.resourceCountIs('AWS::CloudWatch::Alarm', 2 * 2 + 2);
    b.template.hasResourceProperties('AWS::Events::Rule', {
      ScheduleExpression: 'cron(0 3 * * ? *)',
      Targets: [Match.objectLike({ Input: '{"kind":"ch-scatter.schedule","name":"b"}' })],
    });
  });

  it("lets the shard function insert into exactly the destinations' local tables (sorted, qualified)", () => {
    const shardFn = Object.entries(resourcesOf(b.template, FN)).find(([, r]) => r.Properties.Environment.Variables.CH_SCATTER_SHARD)![1];
    expect(shardFn.Properties.Environment.Variables.CH_SCATTER_WRITABLE_TABLES).toBe('default.t1_local,other.t2_local');
  });

  it('authorizes every route with the JWT authorizer instead of IAM', () => {
    b.template.resourceCountIs('AWS::ApiGatewayV2::Authorizer', 1);
    b.template.hasResourceProperties('AWS::ApiGatewayV2::Authorizer', {
      AuthorizerType: 'JWT',
      IdentitySource: ['$request.header.Authorization'],
      JwtConfiguration: { Issuer: 'https://auth.example.com/', Audience: ['ch-scatter'] },
    });
    const authorizer = logicalId(b.template, 'AWS::ApiGatewayV2::Authorizer', 'QueryApi');
    const routes = Object.values(resourcesOf(b.template, 'AWS::ApiGatewayV2::Route'));
    expect(routes).toHaveLength(3);
    for (const r of routes) {
      expect(r.Properties.AuthorizationType).toBe('JWT');
      expect(r.Properties.AuthorizerId).toEqual({ Ref: authorizer });
    }
    b.template.hasResourceProperties('AWS::ApiGatewayV2::Stage', { DefaultRouteSettings: { ThrottlingRateLimit: 10, ThrottlingBurstLimit: 20 } });
  });

  it('puts only the shard function in the VPC, with the ENI permissions it needs', () => {
    const shard = logicalId(b.template, FN, 'Shard0LambdaFunction');
    const coordinator = logicalId(b.template, FN, 'CoordinatorLambdaFunction');
    const fns = resourcesOf(b.template, FN);
    expect(fns[shard]!.Properties.VpcConfig).toEqual({ SubnetIds: ['subnet-0123abcd', 'subnet-89abcdef'], SecurityGroupIds: ['sg-0123456789abcdef0'] });
    expect(fns[coordinator]!.Properties.VpcConfig).toBeUndefined();
    const shardPolicy = resourcesOf(b.template, POLICY)[logicalId(b.template, POLICY, 'Shard0LambdaRole')]!;
    expect(JSON.stringify(shardPolicy.Properties.PolicyDocument)).toContain('ec2:CreateNetworkInterface');
    const coordinatorPolicy = resourcesOf(b.template, POLICY)[logicalId(b.template, POLICY, 'CoordinatorLambdaRole')]!;
    expect(JSON.stringify(coordinatorPolicy.Properties.PolicyDocument)).not.toContain('ec2:');
  });

  it('puts the coordinator in the VPC too when asked (vpc.includeCoordinator)', () => {
    const cfg = awsExample();
    const withCoordinator = build(cfg, {
      vpc: { vpcId: 'vpc-0123abcd', subnetIds: ['subnet-0123abcd'], securityGroupIds: ['sg-0123abcd'], includeCoordinator: true },
    });
    const fns = resourcesOf(withCoordinator.template, FN);
    for (const r of Object.values(fns)) expect(r.Properties.VpcConfig).toEqual({ SubnetIds: ['subnet-0123abcd'], SecurityGroupIds: ['sg-0123abcd'] });
    const policy = resourcesOf(withCoordinator.template, POLICY)[logicalId(withCoordinator.template, POLICY, 'CoordinatorLambdaRole')]!;
    expect(JSON.stringify(policy.Properties.PolicyDocument)).toContain('ec2:CreateNetworkInterface');
  });

  it('sizes for a tight deadline, keeps logs 90 days and routes alarms to the topic', () => {
    const fns = resourcesOf(b.template, FN);
    const c = fns[logicalId(b.template, FN, 'CoordinatorLambdaFunction')]!.Properties;
    expect([c.Timeout, c.MemorySize]).toEqual([5, 1769]);
    expect(fns[logicalId(b.template, FN, 'Shard0LambdaFunction')]!.Properties.Timeout).toBe(3);
    for (const g of Object.values(resourcesOf(b.template, 'AWS::Logs::LogGroup'))) expect(g.Properties.RetentionInDays).toBe(90);
    for (const a of Object.values(resourcesOf(b.template, 'AWS::CloudWatch::Alarm'))) {
      expect(a.Properties.AlarmActions).toEqual([topic]);
      expect(a.Properties.OKActions).toEqual([topic]);
    }
  });
});

/** The problems of the ConfigError `f` throws (every refusal at synthesis is one). */
function problemsOf(f: () => unknown): string[] {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(ConfigError);
    return (e as ConfigError).problems;
  }
  throw new Error('expected a ConfigError, got none');
}

describe('configs the app refuses at synthesis', () => {
  it('refuses embedded replicas and fault injection, naming each JSON path', () => {
    const cfg = awsExample();
    cfg.shards[1].replicas = [{ embedded: '.data/shard-1' }];
    cfg.shards[2].replicas[0].fault = { delayMs: 100 };
    expect(problemsOf(() => build(cfg))).toEqual([
      '$.shards[1].replicas[0].embedded: embedded replicas are for the local stack only; use "url"',
      '$.shards[2].replicas[0].fault: fault injection is for the local stack only',
    ]);
  });

  it('reports every problem of the topology and the deploy options in one pass', () => {
    const cfg = awsExample();
    cfg.schedules[0].destination.table = 'analytics.nowhere';
    cfg.schedules[0].schedule = 'rate(1 hours)';
    cfg.shards[1].replicas[0].secret = 'arn:aws:secretsmanager';
    cfg.tables['analytics.sensor_events_dist'].shardingKey.type = 'Nullable(String)';
    expect(problemsOf(() => build(cfg, { logRetentionDays: 10 }))).toEqual([
      expect.stringMatching(/^\$\.shards\[1\]\.replicas\[0\]\.secret: a Secrets Manager secret name/),
      expect.stringMatching(/^\$\.tables\["analytics\.sensor_events_dist"\]\.shardingKey\.type: Nullable sharding keys are refused/),
      expect.stringMatching(/^\$\.schedules\[0\]\.schedule: an EventBridge expression/),
      '$.schedules[0].destination.table: analytics.nowhere is not in "tables" (rows are routed by its sharding key)',
      expect.stringMatching(/^context logRetentionDays: /),
    ]);
  });

  it('reports every reason a valid topology cannot be deployed in one pass', () => {
    const cfg = awsExample();
    cfg.shards = Array.from({ length: 40 }, (_, i) => ({ replicas: [{ url: `https://clickhouse-replica-${i}.a-long-internal-domain.example.com:8443` }] }));
    cfg.shards[0].replicas = [
      { url: 'https://a:8443', secret: 'one' },
      { url: 'https://b:8443', secret: 'two' },
    ];
    cfg.shards[1].replicas[0].fault = { delayMs: 100 };
    cfg.query = { timeoutMs: 60_000 };
    expect(problemsOf(() => build(cfg))).toEqual([
      '$.shards[1].replicas[0].fault: fault injection is for the local stack only',
      expect.stringMatching(/^\$\.shards\[0\]\.replicas: the replicas of one shard name different secrets \(one, two\)/),
      expect.stringMatching(/^\$\.query\.timeoutMs: 60000 ms /),
      expect.stringMatching(/^\$: the coordinator environment would take up to \d+ bytes .*above Lambda's 4096-byte limit/),
    ]);
  });

  it('refuses the local example config outright', () => {
    expect(() => build(JSON.parse(JSON.stringify({ ...awsExample(), shards: [{ replicas: [{ embedded: 'x' }] }] })))).toThrow(
      /\$\.shards\[0\]\.replicas\[0\]\.embedded/,
    );
  });

  it('refuses a deadline that does not fit under API Gateway', () => {
    const cfg = awsExample();
    cfg.query = { timeoutMs: 60_000 };
    expect(problemsOf(() => build(cfg))).toEqual([expect.stringMatching(/\$\.query\.timeoutMs: 60000 ms .*28 s/)]);
  });

  it('synthesizes the largest deadline it accepts: a 29 s integration over a 28 s coordinator (aws-cdk-lib refuses more than 29 s)', () => {
    const cfg = awsExample();
    cfg.query = { timeoutMs: 24_999 };
    const t = build(cfg).template;
    t.hasResourceProperties('AWS::ApiGatewayV2::Integration', { TimeoutInMillis: 29_000 });
    t.hasResourceProperties('AWS::Lambda::Function', { Timeout: 28 });
  });

  it('refuses replicas of one shard that name different secrets', () => {
    const cfg = awsExample();
    cfg.shards[0].replicas[1].secret = 'another';
    expect(problemsOf(() => build(cfg))).toEqual([expect.stringMatching(/\$\.shards\[0\]\.replicas: the replicas of one shard name different secrets/)]);
  });

  it('refuses a schedule whose destination is not a configured table (its rows could not be routed)', () => {
    const cfg = awsExample();
    cfg.schedules[0].destination.table = 'analytics.nowhere';
    expect(problemsOf(() => build(cfg))).toEqual([expect.stringMatching(/\$\.schedules\[0\]\.destination\.table: analytics\.nowhere is not in "tables"/)]);
  });

  it('refuses a topology too large for the coordinator environment', () => {
    const cfg = awsExample();
    cfg.shards = Array.from({ length: 40 }, (_, i) => ({ replicas: [{ url: `https://clickhouse-replica-${i}.a-long-internal-domain.example.com:8443` }] }));
    expect(problemsOf(() => build(cfg))).toEqual([expect.stringMatching(/above Lambda's 4096-byte limit/)]);
  });
});

describe('where the topology comes from', () => {
  it('takes $CH_SCATTER_CONFIG over the config context, and the context (or the AWS example) otherwise', async () => {
    const { App } = await import('aws-cdk-lib');
    const { configPath, DEFAULT_CONFIG } = await import('../../cdk/create.js');
    const { PROJECT_ROOT } = await import('../../cdk/bundling.js');
    const { join } = await import('node:path');
    const withCtx = new App({ context: { config: 'conf/a.json' } });
    expect(configPath(withCtx, {})).toBe(join(PROJECT_ROOT, 'conf/a.json'));
    expect(configPath(withCtx, { CH_SCATTER_CONFIG: '/abs/b.json' })).toBe('/abs/b.json');
    expect(configPath(new App(), {})).toBe(join(PROJECT_ROOT, DEFAULT_CONFIG));
  });
});
