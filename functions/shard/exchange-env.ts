// CH_SCATTER_EXCHANGE: the JSON a shard function reads to find the exchange bucket (written by the
// CDK app, cdk/constructs/exchange-bucket.ts, and by the local stack for its s3rver), and
// CH_SCATTER_MAX_EXCHANGE_BYTES, the largest answer or final-stage input it holds for the exchange,
// sized to its memory (cdk/sizing.ts). Unset: no exchange, every answer inline.
import { z } from 'zod';
import type { ExchangeStore } from '../../shared/core/shard/exchange.js';

export const exchangeEnvSchema = z.object({
  bucket: z.string().min(3).max(63),
  region: z.string().min(1),
  /** A local S3-compatible server; absent in AWS. */
  endpoint: z.string().url().optional(),
  /** The local server's key pair; absent in AWS (the function role's credentials). */
  credentials: z.object({ accessKeyId: z.string().min(1), secretAccessKey: z.string().min(1) }).optional(),
});
export type ExchangeEnv = z.infer<typeof exchangeEnvSchema>;

export function parseExchangeEnv(raw: string | undefined): ExchangeEnv | undefined {
  if (!raw) return undefined;
  const r = exchangeEnvSchema.safeParse(JSON.parse(raw));
  if (!r.success) throw new Error(`CH_SCATTER_EXCHANGE is invalid: ${r.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
  return r.data;
}

export function parseMaxExchangeBytes(raw: string | undefined): number | undefined {
  if (raw === undefined || raw === '') return undefined;
  const n = Number(raw);
  if (!Number.isInteger(n) || n <= 0) throw new Error(`CH_SCATTER_MAX_EXCHANGE_BYTES must be a positive integer, not ${raw}`);
  return n;
}

/** The store over S3 with zstd, loaded only by functions configured with an exchange. */
export async function createExchangeStore(env: ExchangeEnv): Promise<ExchangeStore> {
  const [{ createS3Exchange }, { zstdCodec }] = await Promise.all([
    import('../../shared/adapters/aws/s3-exchange.js'),
    import('../../shared/adapters/aws/zstd-codec.js'),
  ]);
  return createS3Exchange(env, await zstdCodec());
}
