// The aggregation tree in AWS: with query.treeFanoutAbove > 0 and more shards than that, the
// coordinator invokes ITSELF as a sub-coordinator. It then gets an explicit function name, is told it
// (CH_SCATTER_SELF_FUNCTION), and may invoke exactly that one ARN besides its shard functions (no
// wildcard, no reference to its own Arn attribute, which would be a dependency cycle); cdk-nag stays clean.
import { describe, expect, it } from 'vitest';
import { AwsSolutionsChecks } from 'cdk-nag';
import { awsExample, build, logicalId, resourcesOf } from './support.js';

const FN = 'AWS::Lambda::Function';
const POLICY = 'AWS::IAM::Policy';

function withTree(treeFanoutAbove: number) {
  const cfg = awsExample();
  cfg.query = { ...cfg.query, treeFanoutAbove };
  return cfg;
}

function invokeStatements(template: ReturnType<typeof build>['template']) {
  return Object.values(resourcesOf(template, POLICY)).flatMap((p) =>
    (p.Properties.PolicyDocument.Statement as any[]).filter((s) => [s.Action].flat().some((a: string) => a.startsWith('lambda:'))),
  );
}

describe('coordinator self-invocation for the aggregation tree', () => {
  it('names the function, tells it the name, and grants InvokeFunction on exactly that ARN', () => {
    const { app, stack, template } = build(withTree(2)); // the AWS example has 4 shards
    const coord = logicalId(template, FN, 'CoordinatorLambdaFunction');
    const props = resourcesOf(template, FN)[coord]!.Properties;
    const name = props.FunctionName as string;
    expect(typeof name).toBe('string');
    expect(name.length).toBeLessThanOrEqual(64);
    expect(props.Environment.Variables.CH_SCATTER_SELF_FUNCTION).toBe(name);
    expect(stack.coordinator.selfFunctionName).toBe(name);

    const self = invokeStatements(template).filter((s) => s.Sid === 'InvokeSelfAsSubCoordinator');
    expect(self).toHaveLength(1);
    expect(self[0].Action).toBe('lambda:InvokeFunction');
    expect(self[0].Resource).toEqual({
      'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, ':lambda:', { Ref: 'AWS::Region' }, ':', { Ref: 'AWS::AccountId' }, `:function:${name}`]],
    });
    const text = JSON.stringify(invokeStatements(template));
    expect(text).not.toContain('*');
    expect(text).not.toContain(coord); // no Ref/GetAtt of the coordinator itself: no cycle

    const report = new AwsSolutionsChecks(app).validateScope(stack);
    expect(report.violations).toEqual([]);
    expect(() => app.synth()).not.toThrow(); // a dependency cycle would fail here
  });

  it('adds nothing when the tree cannot apply (fanout 0, or no more shards than the fanout)', () => {
    for (const above of [0, 4]) {
      const { template } = build(withTree(above));
      const coord = logicalId(template, FN, 'CoordinatorLambdaFunction');
      const props = resourcesOf(template, FN)[coord]!.Properties;
      expect(props.FunctionName).toBeUndefined();
      expect(props.Environment.Variables.CH_SCATTER_SELF_FUNCTION).toBeUndefined();
      expect(invokeStatements(template).map((s) => s.Sid)).toEqual(['InvokeShardFunctions']);
    }
  });
});
