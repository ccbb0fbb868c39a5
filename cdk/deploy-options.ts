// Deployment choices that are not part of the topology (which is shared with the CLI and the local
// stack) but belong to one AWS account: authorizer, VPC, throttling, log retention, alarm routing.
// They come from CDK context (cdk.json or `-c key=value`), so they are validated here with the same
// zod style as the topology and reported one line per problem, naming the context key.
import { z } from 'zod';

/** CloudWatch Logs only accepts these retention periods (days). */
export const LOG_RETENTION_DAYS = [1, 3, 5, 7, 14, 30, 60, 90, 120, 150, 180, 365, 400, 545, 731, 1096, 1827, 2192, 2557, 2922, 3288, 3653] as const;

export const deployOptionsSchema = z
  .object({
    stackName: z
      .string()
      .regex(/^[A-Za-z][A-Za-z0-9-]{0,127}$/, 'a CloudFormation stack name')
      .default('ChScatter'),
    /** Replace the default IAM authorization of every route with a JWT authorizer (Cognito, Auth0, ...). */
    jwt: z
      .object({
        issuer: z.string().url(),
        audience: z.array(z.string().min(1)).min(1),
        identitySource: z.array(z.string().min(1)).min(1).optional(),
      })
      .strict()
      .optional(),
    /** Where the shard functions run to reach ClickHouse. Without it they use Lambda's public egress. */
    vpc: z
      .object({
        vpcId: z.string().regex(/^vpc-([0-9a-f]{8}|[0-9a-f]{17})$/, 'a VPC id (vpc-...)'),
        subnetIds: z.array(z.string().regex(/^subnet-([0-9a-f]{8}|[0-9a-f]{17})$/, 'a subnet id (subnet-...)')).min(1),
        securityGroupIds: z.array(z.string().regex(/^sg-([0-9a-f]{8}|[0-9a-f]{17})$/, 'a security group id (sg-...)')).min(1),
        /**
         * Put the coordinator there too. Not needed for ClickHouse: the coordinator reaches it only through
         * the shard functions (queries, the parity guard's reads, scheduled inserts). Its subnets then need
         * a way to the Lambda API (NAT or a `lambda` interface endpoint) to invoke the shard functions.
         */
        includeCoordinator: z.boolean().default(false),
      })
      .strict()
      .optional(),
    /** Stage-wide API Gateway throttling (requests per second, burst). */
    throttle: z
      .object({ rateLimit: z.number().positive().default(50), burstLimit: z.number().int().positive().default(100) })
      .strict()
      .default({ rateLimit: 50, burstLimit: 100 }),
    logRetentionDays: z
      .number()
      .int()
      .refine((d) => (LOG_RETENTION_DAYS as readonly number[]).includes(d), {
        message: `one of ${LOG_RETENTION_DAYS.join(', ')}`,
      })
      .default(30),
    /** SNS topic (existing) that receives alarm and OK notifications. */
    alarmTopicArn: z
      .string()
      .regex(/^arn:aws[a-z-]*:sns:[a-z0-9-]+:\d{12}:[A-Za-z0-9_-]+$/, 'an SNS topic ARN')
      .optional(),
    alarms: z
      .object({
        /** Percent of coordinator invocations that answered partially, per 5 minutes. */
        partialRatePercent: z.number().min(0).max(100).default(5),
        /** p99 coordinator duration; default: the configured query deadline (queries hitting it). */
        p99LatencyMs: z.number().int().positive().optional(),
        /** Errors (or throttles) per 5 minutes that raise an alarm. */
        errorThreshold: z.number().int().positive().default(1),
      })
      .strict()
      .default({ partialRatePercent: 5, errorThreshold: 1 }),
    /** Override the derived memory sizes (MB). */
    memory: z
      .object({ coordinatorMb: z.number().int().min(128).max(10240).optional(), shardMb: z.number().int().min(128).max(10240).optional() })
      .strict()
      .default({}),
    /** CloudWatch namespace of the coordinator's custom metrics (PartialResults). */
    metricsNamespace: z
      .string()
      .regex(/^[A-Za-z0-9_./#:-]{1,255}$/)
      .default('ChScatter'),
    /**
     * Serve the web console at GET /play (off by default): the coordinator ships the page and the
     * API gets the route, behind the same authorizer as /query.
     */
    play: z.boolean().default(false),
    /**
     * Serve ClickHouse's HTTP interface at `/` (GET, POST) and GET /ping (off by default), so ClickHouse
     * clients connect to the API URL. With `usersSecretArn` (a Secrets Manager secret holding the users
     * file: salted password hashes) a Lambda authorizer checks Basic / X-ClickHouse-User credentials on
     * those routes; without it they take the API's authorizer (JWT bearer tokens, or IAM).
     */
    clickhouse: z
      .object({
        usersSecretArn: z
          .string()
          .regex(/^arn:aws[a-z-]*:secretsmanager:[a-z0-9-]+:\d{12}:secret:[A-Za-z0-9/_+=.@-]+$/, 'a Secrets Manager secret ARN')
          .optional(),
      })
      .strict()
      .optional(),
    /**
     * The streaming front door (off by default): a second function sharing the coordinator's code,
     * behind a Lambda Function URL in RESPONSE_STREAM mode, serving ClickHouse's HTTP interface with
     * answers written as they are produced and queries up to `timeoutS`. `auth`: 'iam' (the URL's
     * AWS_IAM auth type: SigV4-signed requests), 'users' (the function checks ClickHouse credentials
     * against `clickhouse.usersSecretArn`, as the API's authorizer does) or 'jwt' (the function checks
     * `Authorization: Bearer` tokens against the `jwt` option's issuer and audiences, as the API's JWT
     * authorizer does).
     */
    streaming: z
      .object({
        auth: z.enum(['iam', 'users', 'jwt']).default('iam'),
        timeoutS: z.number().int().min(30).max(900).default(900),
      })
      .strict()
      .optional(),
    /** Run cdk-nag's AwsSolutions checks during synthesis (default on). */
    nag: z.boolean().default(true),
  })
  .strict();

export type DeployOptions = z.output<typeof deployOptionsSchema>;
export const DEPLOY_OPTION_KEYS = Object.keys(deployOptionsSchema.shape) as (keyof DeployOptions)[];

export class DeployOptionsError extends Error {
  readonly problems: string[];
  constructor(problems: string[]) {
    super(`invalid CDK context:\n${problems.join('\n')}`);
    this.name = 'DeployOptionsError';
    this.problems = problems;
  }
}

/**
 * `-c key=value` arrives as a string; cdk.json values arrive as JSON. Accept both: a string that
 * parses as JSON (object, array, number, boolean) is taken as that value, anything else stays a string.
 */
function contextValue(raw: unknown): unknown {
  if (typeof raw !== 'string') return raw;
  const t = raw.trim();
  if (/^[[{]/.test(t) || /^-?\d+(\.\d+)?$/.test(t) || t === 'true' || t === 'false') {
    try {
      return JSON.parse(t);
    } catch {
      return raw;
    }
  }
  return raw;
}

/** Validate the deploy options found under their context keys (lookup = node.tryGetContext). */
export function parseDeployOptions(lookup: (key: string) => unknown): DeployOptions {
  const input: Record<string, unknown> = {};
  for (const key of DEPLOY_OPTION_KEYS) {
    const v = lookup(key);
    if (v !== undefined) input[key] = contextValue(v);
  }
  const res = deployOptionsSchema.safeParse(input);
  if (!res.success) {
    throw new DeployOptionsError(res.error.issues.map((i) => `context ${i.path.map(String).join('.') || '(root)'}: ${i.message}`));
  }
  return res.data;
}
