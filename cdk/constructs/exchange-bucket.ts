// The exchange bucket: where a shard's stage-one answer too large to travel inline waits for the
// final stage (shared/core/shard/exchange.ts). Encrypted (S3-managed keys), no public access, TLS
// only, every object expired a day after it was written (the coordinator deletes a query's objects
// when it ends; the rule is the backstop). Each shard function may write only under its own prefix,
// `q/<query>/s<shard>/`, and read the exchange's objects, which its final stages need; the
// coordinator (and the streaming door) may only delete.
import { Duration, RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as s3 from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';
import type { ExchangeEnv } from '../../functions/shard/exchange-env.js';

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
   * Shard `shard`'s function: write under its own prefix, read the exchange's objects. One policy of
   * its own, so the wildcard findings acknowledged here are these statements' only.
   */
  grantShard(scope: Construct, role: iam.IRole, shard: number): iam.Policy {
    const own = this.bucket.arnForObjects(`${EXCHANGE_KEY_ROOT}*/s${shard}/*`);
    const policy = new iam.Policy(scope, 'ExchangeAccess', {
      statements: [
        new iam.PolicyStatement({ actions: ['s3:PutObject'], resources: [own] }),
        new iam.PolicyStatement({ actions: ['s3:GetObject'], resources: [this.bucket.arnForObjects(`${EXCHANGE_KEY_ROOT}*`)] }),
      ],
    });
    policy.attachToRole(role);
    const bucketId = this.bucketLogicalId();
    Validations.of(policy).acknowledge({
      id: `AwsSolutions-IAM5[Resource::<${bucketId}.Arn>/${EXCHANGE_KEY_ROOT}*/s${shard}/*]`,
      reason: `Each query writes under its own key prefix, q/<query id>/s${shard}/, unknown at deploy time: the wildcard stands for the query id, and the shard number pins this function to its own prefix for PutObject.`,
    });
    Validations.of(policy).acknowledge({
      id: `AwsSolutions-IAM5[Resource::<${bucketId}.Arn>/${EXCHANGE_KEY_ROOT}*]`,
      reason:
        'GetObject spans q/*: a final stage reads the stage-one answers every other shard wrote for its query, and which shards those are is decided per query.',
    });
    return policy;
  }

  /**
   * The coordinator's (and the streaming door's): delete a query's objects when it ends, nothing
   * else, so the cleanup invokes no shard function (whose reserved concurrency the next query needs).
   */
  grantCleanup(scope: Construct, role: iam.IRole): iam.Policy {
    const policy = new iam.Policy(scope, 'ExchangeCleanup', {
      statements: [new iam.PolicyStatement({ actions: ['s3:DeleteObject'], resources: [this.bucket.arnForObjects(`${EXCHANGE_KEY_ROOT}*`)] })],
    });
    policy.attachToRole(role);
    Validations.of(policy).acknowledge({
      id: `AwsSolutions-IAM5[Resource::<${this.bucketLogicalId()}.Arn>/${EXCHANGE_KEY_ROOT}*]`,
      reason:
        'DeleteObject spans q/*: when a query ends, its coordinator deletes the objects every shard wrote for it, under q/<query id>/, a prefix unknown at deploy time.',
    });
    return policy;
  }

  /** cdk-nag names a finding by the bucket's logical id. */
  private bucketLogicalId(): string {
    const stack = Stack.of(this);
    return stack.resolve(stack.getLogicalId(this.bucket.node.defaultChild as s3.CfnBucket)) as string;
  }

  /** CH_SCATTER_EXCHANGE for a function of this stack. */
  environment(scope: Construct): string {
    return Stack.of(scope).toJsonString({ bucket: this.bucket.bucketName, region: Stack.of(scope).region } satisfies ExchangeEnv);
  }
}
