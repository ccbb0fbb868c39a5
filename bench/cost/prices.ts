// The prices the cost bench multiplies measured durations by: one table, with the date and region it
// was read for. Override any entry with a JSON file named by CH_BENCH_PRICES (same keys, a subset is
// fine), e.g. for another region or a later price list; the bench prints what it used.
import { readFileSync } from 'node:fs';

export interface Prices {
  region: string;
  /** When these figures were read off the AWS price pages. */
  asOf: string;
  /** Lambda, arm64: per GB-second of billed duration (GB = configured memory / 1024). */
  lambdaArmPerGbSecond: number;
  /** Lambda: per request (invocation), any architecture. */
  lambdaPerRequest: number;
  /** API Gateway HTTP API: per request, each metered in steps of httpApiStepBytes. */
  httpApiPerRequest: number;
  httpApiStepBytes: number;
  /** A Lambda Function URL: no charge beyond the function's own. */
  functionUrlPerRequest: number;
  /** S3 exchange operations (none today; kept so the formula keeps its term). */
  s3PutPerRequest: number;
  s3GetPerRequest: number;
  /** CloudWatch Logs ingestion, per GB. */
  logsIngestPerGb: number;
  /** The always-on query node of the break-even: an on-demand arm64 instance. */
  node: { instance: string; vcpus: number; memoryGb: number; perHour: number };
}

export const DEFAULT_PRICES: Prices = {
  region: 'us-east-1',
  asOf: '2026-12-01',
  lambdaArmPerGbSecond: 0.0000133334,
  lambdaPerRequest: 0.2 / 1e6,
  httpApiPerRequest: 1.0 / 1e6,
  httpApiStepBytes: 512 * 1024,
  functionUrlPerRequest: 0,
  s3PutPerRequest: 0.005 / 1000,
  s3GetPerRequest: 0.0004 / 1000,
  logsIngestPerGb: 0.5,
  // c7g.medium (Graviton3, 1 vCPU, 2 GiB), Linux on-demand: the smallest non-burstable arm64 node
  // with the coordinator's one vCPU; m7g.medium (4 GiB) is $0.0408 per hour.
  node: { instance: 'c7g.medium', vcpus: 1, memoryGb: 2, perHour: 0.0363 },
};

export const PRICES_ENV = 'CH_BENCH_PRICES';

/** DEFAULT_PRICES with the entries of the JSON file named by $CH_BENCH_PRICES (if set) on top. */
export function loadPrices(env: NodeJS.ProcessEnv = process.env): { prices: Prices; source: string } {
  const file = env[PRICES_ENV];
  if (!file) return { prices: DEFAULT_PRICES, source: 'bench/cost/prices.ts' };
  const over = JSON.parse(readFileSync(file, 'utf8')) as Partial<Prices>;
  const unknown = Object.keys(over).filter((k) => !(k in DEFAULT_PRICES));
  if (unknown.length) throw new Error(`${file}: unknown price keys ${unknown.join(', ')}; known: ${Object.keys(DEFAULT_PRICES).join(', ')}`);
  return { prices: { ...DEFAULT_PRICES, ...over, node: { ...DEFAULT_PRICES.node, ...over.node } }, source: `${file} over bench/cost/prices.ts` };
}
