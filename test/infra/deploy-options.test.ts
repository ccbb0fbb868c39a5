// Deploy options from CDK context: cdk.json objects and `-c key=value` strings both work, and
// problems name the context key.
import { describe, expect, it } from 'vitest';
import { DeployOptionsError, parseDeployOptions } from '../../cdk/deploy-options.js';

const from = (ctx: Record<string, unknown>) => parseDeployOptions((k) => ctx[k]);

describe('parseDeployOptions', () => {
  it('fills defaults: IAM auth (no jwt), no VPC, throttled stage, 30-day logs, nag on', () => {
    const o = from({});
    expect(o.stackName).toBe('ChScatter');
    expect(o.jwt).toBeUndefined();
    expect(o.vpc).toBeUndefined();
    expect(o.throttle).toEqual({ rateLimit: 50, burstLimit: 100 });
    expect(o.logRetentionDays).toBe(30);
    expect(o.alarms).toEqual({ partialRatePercent: 5, errorThreshold: 1 });
    expect(o.nag).toBe(true);
  });

  it('parses JSON strings as given on the command line (-c jwt=... -c logRetentionDays=90 -c nag=false)', () => {
    const o = from({
      jwt: '{"issuer":"https://cognito-idp.eu-west-1.amazonaws.com/eu-west-1_abc","audience":["client-1"]}',
      logRetentionDays: '90',
      nag: 'false',
      stackName: 'ChScatterProd',
    });
    expect(o.jwt).toEqual({ issuer: 'https://cognito-idp.eu-west-1.amazonaws.com/eu-west-1_abc', audience: ['client-1'] });
    expect(o.logRetentionDays).toBe(90);
    expect(o.nag).toBe(false);
    expect(o.stackName).toBe('ChScatterProd');
  });

  it('reports every problem with its context key', () => {
    let err: unknown;
    try {
      from({
        logRetentionDays: 10,
        vpc: { vpcId: 'vpc-1', subnetIds: [], securityGroupIds: ['sg-0123abcd'] },
        jwt: { issuer: 'not a url', audience: ['a'] },
        alarmTopicArn: 'topic',
      });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(DeployOptionsError);
    const problems = (err as DeployOptionsError).problems.join('\n');
    expect(problems).toMatch(/context logRetentionDays: one of 1, 3, 5/);
    expect(problems).toMatch(/context vpc\.vpcId: a VPC id/);
    expect(problems).toMatch(/context vpc\.subnetIds: /);
    expect(problems).toMatch(/context jwt\.issuer: /);
    expect(problems).toMatch(/context alarmTopicArn: an SNS topic ARN/);
  });

  it('refuses unknown keys inside an option (a typo must not silently drop a setting)', () => {
    expect(() => from({ throttle: { rateLimit: 5, burst: 10 } })).toThrow(/context throttle/);
  });
});
