// The `streaming` deploy option: a second function sharing the coordinator's code behind a Function
// URL in RESPONSE_STREAM mode (IAM auth by default, or the users secret checked in the function),
// allowed to invoke exactly the shard functions (lambda:InvokeFunction, the permission
// InvokeWithResponseStream requires) and to delete exchange objects only, which run the streaming handler with the door's timeout;
// cdk-nag finds nothing unacknowledged; a door that would check users against no secret is refused
// at synth.
import { describe, expect, it } from 'vitest';
import { AwsSolutionsChecks } from 'cdk-nag';
import { deployProblems } from '../../cdk/deploy-problems.js';
import { parseTopology } from '../../shared/core/config/load.js';
import { awsExample, build, resourcesOf } from './support.js';

const USERS = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:ch-users-AbCdEf';

describe('the streaming front door (deploy option streaming)', () => {
  it('a Function URL in RESPONSE_STREAM mode with AWS_IAM auth, the door timeout, invoke on the shard functions only', () => {
    const { template, stack } = build(awsExample(), { streaming: { timeoutS: 600 } });
    const urls = Object.values(resourcesOf(template, 'AWS::Lambda::Url'));
    expect(urls).toHaveLength(1);
    expect(urls[0]!.Properties).toMatchObject({ AuthType: 'AWS_IAM', InvokeMode: 'RESPONSE_STREAM' });
    const fn = template.toJSON().Resources[stack.getLogicalId(stack.streamingDoor!.function.fn.node.defaultChild as never)];
    expect(fn.Properties.Timeout).toBe(600);
    expect(Object.keys(fn.Properties.Environment.Variables)).toEqual(
      expect.arrayContaining(['CH_SCATTER_TOPOLOGY', 'CH_SCATTER_SHARD_FUNCTIONS', 'CH_SCATTER_CURSOR_SECRET_ARN']),
    );
    expect(fn.Properties.Environment.Variables.CH_SCATTER_USERS_SECRET_ARN).toBeUndefined();
    const invokes = Object.values(resourcesOf(template, 'AWS::IAM::Policy'))
      .filter((p) => JSON.stringify(p.Properties.Roles).includes('StreamingDoor'))
      .flatMap((p) => p.Properties.PolicyDocument.Statement as { Action: unknown; Resource: unknown }[])
      .filter((s) => s.Action === 'lambda:InvokeFunction');
    expect(invokes).toHaveLength(1);
    expect(JSON.stringify(invokes[0]!.Resource)).not.toContain('*');
    // Its general-path queries' exchange objects: deleted with its own rights, delete only.
    const door = Object.values(resourcesOf(template, 'AWS::IAM::Policy'))
      .filter((p) => JSON.stringify(p.Properties.Roles).includes('StreamingDoor'))
      .flatMap((p) => p.Properties.PolicyDocument.Statement as { Action: unknown; Resource: unknown }[]);
    expect(door.filter((s) => JSON.stringify(s.Action).includes('s3:')).map((s) => s.Action)).toEqual(['s3:DeleteObject']);
    expect(Object.keys(fn.Properties.Environment.Variables)).toContain('CH_SCATTER_EXCHANGE');
    expect(template.toJSON().Outputs.StreamingUrl).toBeDefined();
  });

  it("the shard functions run the streaming handler (Invoke and InvokeWithResponseStream) with the door's timeout; without the door, the buffered one", () => {
    const shardFns = (t: ReturnType<typeof build>['template']) =>
      Object.values(resourcesOf(t, 'AWS::Lambda::Function')).filter((f) => f.Properties.Environment?.Variables?.CH_SCATTER_SHARD);
    const withDoor = shardFns(build(awsExample(), { streaming: { timeoutS: 600 } }).template);
    expect(withDoor.length).toBeGreaterThan(0);
    for (const f of withDoor) expect(f.Properties).toMatchObject({ Handler: 'index.streamingHandler', Timeout: 600 });
    const without = shardFns(build(awsExample()).template);
    expect(without.length).toBe(withDoor.length);
    for (const f of without) {
      expect(f.Properties.Handler).toBe('index.handler');
      expect(f.Properties.Timeout).toBeLessThanOrEqual(30);
    }
  });

  it("auth 'users': URL auth NONE, the users secret in the function's environment and readable by its role", () => {
    const { template } = build(awsExample(), { streaming: { auth: 'users' }, clickhouse: { usersSecretArn: USERS } });
    const url = Object.values(resourcesOf(template, 'AWS::Lambda::Url'))[0]!;
    expect(url.Properties.AuthType).toBe('NONE');
    const door = Object.values(resourcesOf(template, 'AWS::Lambda::Function')).find((f) => f.Properties.Environment?.Variables?.CH_SCATTER_USERS_SECRET_ARN);
    expect(door?.Properties.Environment.Variables.CH_SCATTER_USERS_SECRET_ARN).toBe(USERS);
  });

  it("refuses auth 'users' without a users secret, naming the option", () => {
    const topo = parseTopology(awsExample());
    const base = { metricsNamespace: 'ChScatter', memory: {} };
    expect(deployProblems(topo, { ...base, streaming: { auth: 'users', timeoutS: 900 } })).toEqual([
      expect.stringMatching(/^streaming\.auth: 'users'.*usersSecretArn/),
    ]);
    expect(deployProblems(topo, { ...base, streaming: { auth: 'users', timeoutS: 900 }, clickhouse: { usersSecretArn: USERS } })).toEqual([]);
    expect(() => build(awsExample(), { streaming: { auth: 'users' } })).toThrow(/streaming\.auth/);
  });

  it('cdk-nag finds nothing unacknowledged with the door (either auth)', () => {
    for (const context of [{ streaming: {} }, { streaming: { auth: 'users' }, clickhouse: { usersSecretArn: USERS } }]) {
      const { app, stack } = build(awsExample(), context);
      const report = new AwsSolutionsChecks(app).validateScope(stack);
      expect(report.violations.map((v) => `${v.ruleName} ${v.violatingResources.map((r) => r.constructPath).join(',')}`)).toEqual([]);
    }
  });
});
