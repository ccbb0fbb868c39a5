// The Lambda function name of each shard, for both invokers (the SDK one and the lean one): from
// CH_SCATTER_SHARD_FUNCTIONS (what the CDK stack sets), else the local stack's ch-scatter-shard-<i>.
// Its own module so the lean invoker does not load the SDK invoker (and the SDK) to read it.
export function shardFunctionNames(shardCount: number, env: NodeJS.ProcessEnv = process.env): string[] {
  const raw = env.CH_SCATTER_SHARD_FUNCTIONS;
  if (raw) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(raw);
    } catch {
      throw new Error('CH_SCATTER_SHARD_FUNCTIONS is not valid JSON (expected an array of function names)');
    }
    if (!Array.isArray(parsed) || !parsed.every((x) => typeof x === 'string')) throw new Error('CH_SCATTER_SHARD_FUNCTIONS must be a JSON array of strings');
    if (parsed.length !== shardCount) throw new Error(`CH_SCATTER_SHARD_FUNCTIONS names ${parsed.length} functions but the topology has ${shardCount} shards`);
    return parsed as string[];
  }
  return Array.from({ length: shardCount }, (_, i) => `ch-scatter-shard-${i}`);
}
