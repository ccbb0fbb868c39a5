// CH_SCATTER_SHARD: the JSON a shard function reads to find its replicas and credentials. One
// definition for both sides: the handler parses it, the CDK app (cdk/constructs/shard-function.ts)
// writes it. Kept free of AWS and middy imports so the CDK app can read it without loading them.
import { z } from 'zod';

export const shardEnvSchema = z.object({
  shard: z.number().int().nonnegative(),
  replicas: z.array(z.object({ url: z.string().url(), secretArn: z.string().min(1).optional() })).min(1),
  /** Default secret for every replica without its own. */
  secretArn: z.string().min(1).optional(),
  database: z.string().min(1).optional(),
});
export type ShardEnv = z.infer<typeof shardEnvSchema>;

export function parseShardEnv(raw: string | undefined): ShardEnv {
  if (!raw) throw new Error('CH_SCATTER_SHARD is not set');
  const r = shardEnvSchema.safeParse(JSON.parse(raw));
  if (!r.success) throw new Error(`CH_SCATTER_SHARD is invalid: ${r.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
  return r.data;
}
