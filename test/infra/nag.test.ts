// cdk-nag's AwsSolutions pack over the real stack: no finding may be left unacknowledged, and every
// acknowledgment carries a written reason. A deliberately bad resource proves the check can fail.
import { describe, expect, it } from 'vitest';
import { App, Stack, Validations } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import { AwsSolutionsChecks } from 'cdk-nag';
import type { IConstruct } from 'constructs';
import { awsExample, build } from './support.js';

function acknowledgments(root: IConstruct): { path: string; id: string; reason: string }[] {
  return root.node
    .findAll()
    .flatMap((c) =>
      c.node.metadata
        .filter((m) => m.type === Validations.ACKNOWLEDGED_RULES_METADATA_KEY)
        .flatMap((m) => Object.entries(m.data as Record<string, string>).map(([id, reason]) => ({ path: c.node.path, id, reason }))),
    );
}

describe('cdk-nag AwsSolutions', () => {
  it('finds nothing unacknowledged in the default stack, and every acknowledgment says why', () => {
    const { app, stack } = build(awsExample());
    const report = new AwsSolutionsChecks(app).validateScope(stack);
    expect(report.violations.map((v) => `${v.ruleName} ${v.violatingResources.map((r) => r.constructPath).join(',')}`)).toEqual([]);
    expect(report.success).toBe(true);
    const acks = acknowledgments(stack);
    expect(new Set(acks.map((a) => a.id.replace(/^annotation::/i, '').replace(/\[.*$/, '')))).toEqual(
      new Set(['AwsSolutions-L1', 'AwsSolutions-IAM5', 'AwsSolutions-SMG4', 'AwsSolutions-S1']),
    );
    for (const a of acks) expect(a.reason.length, `${a.path} ${a.id}`).toBeGreaterThan(60);
  });

  it('finds nothing unacknowledged with a VPC and a JWT authorizer, and passes a full synth with the plugin attached', () => {
    const cfg = awsExample();
    // nag=true: createChScatter registers the plugin itself, as `cdk synth` does; a violation would throw.
    const { app, stack } = build(cfg, {
      nag: true,
      jwt: { issuer: 'https://auth.example.com/', audience: ['x'] },
      vpc: { vpcId: 'vpc-0123abcd', subnetIds: ['subnet-0123abcd'], securityGroupIds: ['sg-0123abcd'] },
    });
    const report = new AwsSolutionsChecks(app).validateScope(stack);
    expect(report.violations).toEqual([]);
    expect(() => app.synth()).not.toThrow();
  });

  it('reports an unacknowledged wildcard policy (the check is live)', () => {
    const app = new App();
    const stack = new Stack(app, 'Bad');
    const role = new iam.Role(stack, 'Role', { assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com') });
    role.addToPolicy(new iam.PolicyStatement({ actions: ['s3:*'], resources: ['*'] }));
    const report = new AwsSolutionsChecks(app).validateScope(stack);
    expect(report.success).toBe(false);
    expect(report.violations.map((v) => v.ruleName)).toContain('AwsSolutions-IAM5[Action::s3:*]');
  });
});
