// The one way this app makes a Lambda function, so the coordinator and every shard function share the
// same posture: Node 22 on ARM64, esbuild ESM bundle (cdk/bundling.ts), its own log group with a bounded retention, and its
// own role that may write only to that log group (no AWS managed policy, whose log permissions span every
// log group in the account). Callers add exactly the extra permissions they need.
import { Duration, RemovalPolicy, Validations } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import type * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as logs from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { handlerCode } from '../bundling.js';

export const RUNTIME = lambda.Runtime.NODEJS_22_X;
export const ARCHITECTURE = lambda.Architecture.ARM_64;

export interface ScatterFunctionProps {
  entry: string;
  description: string;
  memoryMb: number;
  timeoutS: number;
  environment: Record<string, string>;
  logRetentionDays: number;
  /** An explicit physical name (the coordinator sets one when it must invoke itself); default: generated. */
  functionName?: string;
  /** Shard functions run in the VPC to reach ClickHouse; the coordinator only with vpc.includeCoordinator. */
  vpc?: { vpc: ec2.IVpc; subnets: ec2.ISubnet[]; securityGroups: ec2.ISecurityGroup[] };
  /** Files shipped beside the handler (name in the bundle -> source path). */
  copyFiles?: Record<string, string>;
  /** The entry's export Lambda calls (default `handler`). */
  handlerExport?: string;
}

export class ScatterFunction extends Construct {
  readonly fn: lambda.Function;
  readonly role: iam.Role;
  readonly logGroup: logs.LogGroup;

  constructor(scope: Construct, id: string, props: ScatterFunctionProps) {
    super(scope, id);
    this.logGroup = new logs.LogGroup(this, 'Logs', {
      retention: props.logRetentionDays as logs.RetentionDays,
      // The stack owns these logs and retention already bounds them; `cdk destroy` leaves nothing billable.
      removalPolicy: RemovalPolicy.DESTROY,
    });
    this.role = new iam.Role(this, 'Role', {
      assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com'),
      description: `${props.description}: writes its own logs only`,
    });
    this.logGroup.grantWrite(this.role);

    if (props.vpc) {
      // What AWSLambdaVPCAccessExecutionRole grants, inline: Lambda manages the function's ENIs.
      this.role.addToPolicy(
        new iam.PolicyStatement({
          actions: [
            'ec2:CreateNetworkInterface',
            'ec2:DescribeNetworkInterfaces',
            'ec2:DescribeSubnets',
            'ec2:DeleteNetworkInterface',
            'ec2:AssignPrivateIpAddresses',
            'ec2:UnassignPrivateIpAddresses',
          ],
          resources: ['*'],
        }),
      );
    }

    this.fn = new lambda.Function(this, 'Function', {
      code: handlerCode(props.entry, props.copyFiles),
      handler: `index.${props.handlerExport ?? 'handler'}`, // an export of index.mjs (HANDLER_FILE)
      ...(props.functionName ? { functionName: props.functionName } : {}),
      runtime: RUNTIME,
      architecture: ARCHITECTURE,
      description: props.description,
      memorySize: props.memoryMb,
      timeout: Duration.seconds(props.timeoutS),
      role: this.role,
      logGroup: this.logGroup,
      tracing: lambda.Tracing.ACTIVE,
      environment: { NODE_OPTIONS: '--enable-source-maps', ...props.environment },
      ...(props.vpc ? { vpc: props.vpc.vpc, vpcSubnets: { subnets: props.vpc.subnets }, securityGroups: props.vpc.securityGroups } : {}),
    });

    Validations.of(this.fn).acknowledge({
      id: 'AwsSolutions-L1',
      reason:
        'The runtime is pinned to Node.js 22 on purpose: the bundle targets node22 and the project is built and tested on the Node 20/22 line. ' +
        'Moving to a newer runtime is a deliberate upgrade (change RUNTIME here and the esbuild target), not something to drift into.',
    });
    // cdk-nag v3 acknowledges one finding at a time, on the construct or an ancestor of the flagged resource.
    Validations.of(this.role).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason:
        'X-Ray PutTraceSegments/PutTelemetryRecords do not support resource-level permissions, so active tracing needs Resource "*".' +
        (props.vpc
          ? ' The EC2 network-interface actions Lambda needs to attach the function to the VPC do not support resource-level permissions either.'
          : ''),
    });
  }
}
