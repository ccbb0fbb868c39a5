// The exchange bucket: where a shard's stage-one answer too large to travel inline waits for the
// final stage (shared/core/shard/exchange.ts). Encrypted (S3-managed keys), no public access, TLS
// only, every object expired a day after it was written (the writers delete theirs when the query
// ends; the rule is the backstop). Each shard function may write and delete only under its own
// prefix, `q/<query>/s<shard>/`, and read the exchange's objects, which its final stages need.
import { Duration, RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as s3 from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';

/** What the exchange's keys start with (exchangePrefix in shared/core/shard/exchange.ts). */
export const EXCHANGE_KEY_ROOT = 'q/';

export class ExchangeBucket extends Construct {
  readonly bucket: s3.Bucket;

  constructor(scope: Construct, id: string) {
    super(scope, id);
    this.bucket = new s3.Bucket(this, 'Bucket', {
      encryption: s3.BucketEncryption.S3_MANAGED,
      blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
      enforceSSL: true,
      objectOwnership: s3.ObjectOwnership.BUCKET_OWNER_ENFORCED,
      lifecycleRules: [
        { id: 'expire-query-states', prefix: EXCHANGE_KEY_ROOT, expiration: Duration.days(1), abortIncompleteMultipartUploadAfter: Duration.days(1) },
      ],
      // Its objects are intermediate query states that expire within a day: nothing to keep.
      removalPolicy: RemovalPolicy.DESTROY,
    });
    Validations.of(this.bucket).acknowledge({
      id: 'AwsSolutions-S1',
      reason:
        'The bucket holds intermediate query states for at most a day, written and read only by the shard functions under their own prefixes; ' +
        'each access is already in the functions’ logs with the query id, and a server access log bucket would keep more than the data itself.',
    });
  }

  /**
   * Shard `shard`'s function: write and delete under its own prefix, read the exchange's objects. One
   * policy of its own, so the wildcard findings acknowledged here are these statements' only.
   */
  grantShard(scope: Construct, role: iam.IRole, shard: number): iam.Policy {
    const own = this.bucket.arnForObjects(`${EXCHANGE_KEY_ROOT}*/s${shard}/*`);
    const policy = new iam.Policy(scope, 'ExchangeAccess', {
      statements: [
        new iam.PolicyStatement({ actions: ['s3:PutObject', 's3:DeleteObject'], resources: [own] }),
        new iam.PolicyStatement({ actions: ['s3:GetObject'], resources: [this.bucket.arnForObjects(`${EXCHANGE_KEY_ROOT}*`)] }),
      ],
    });
    policy.attachToRole(role);
    // cdk-nag names a finding by the bucket's logical id.
    const stack = Stack.of(this);
    const bucketId = stack.resolve(stack.getLogicalId(this.bucket.node.defaultChild as s3.CfnBucket)) as string;
    Validations.of(policy).acknowledge({
      id: `AwsSolutions-IAM5[Resource::<${bucketId}.Arn>/${EXCHANGE_KEY_ROOT}*/s${shard}/*]`,
      reason: `Each query writes under its own key prefix, q/<query id>/s${shard}/, unknown at deploy time: the wildcard stands for the query id, and the shard number pins this function to its own prefix for PutObject and DeleteObject.`,
    });
    Validations.of(policy).acknowledge({
      id: `AwsSolutions-IAM5[Resource::<${bucketId}.Arn>/${EXCHANGE_KEY_ROOT}*]`,
      reason:
        'GetObject spans q/*: a final stage reads the stage-one answers every other shard wrote for its query, and which shards those are is decided per query.',
    });
    return policy;
  }
}
