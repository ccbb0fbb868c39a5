// What makes a valid topology undeployable, found before any construct is built and reported all
// at once, one line per problem with its JSON path, like every other config problem: options only
// the local stack understands, replicas of one shard naming different secrets, a deadline that does
// not fit under API Gateway, a topology too large for the coordinator's environment.
import { localOnlyProblems } from '../shared/core/config/load.js';
import type { Topology } from '../shared/core/config/schema.js';
import { coordinatorEnvironmentProblem } from './constructs/coordinator.js';
import { shardSecretProblem } from './constructs/shard-function.js';
import type { DeployOptions } from './deploy-options.js';
import { deriveSizing, SizingError } from './sizing.js';

export function deployProblems(
  topology: Topology,
  options: Pick<DeployOptions, 'metricsNamespace' | 'memory'> & Partial<Pick<DeployOptions, 'play' | 'streaming' | 'clickhouse' | 'jwt'>>,
): string[] {
  const problems = [...localOnlyProblems(topology)];
  const door = streamingProblem(options);
  if (door) problems.push(door);
  topology.shards.forEach((shard, i) => {
    const p = shardSecretProblem(shard, i);
    if (p) problems.push(p);
  });
  try {
    deriveSizing(topology.query, topology.shards.length, options.memory);
  } catch (e) {
    if (!(e instanceof SizingError)) throw e;
    problems.push(e.message);
  }
  const env = coordinatorEnvironmentProblem(topology, topology.shards.length, options.metricsNamespace, options.play);
  if (env) problems.push(env);
  return problems;
}

/**
 * The streaming door checks credentials itself only against a users secret or a JWT issuer: without
 * one, nothing would. It reads a token from `Authorization` only.
 */
export function streamingProblem(options: Partial<Pick<DeployOptions, 'streaming' | 'clickhouse' | 'jwt'>>): string | undefined {
  const auth = options.streaming?.auth;
  if (auth === 'users' && !options.clickhouse?.usersSecretArn)
    return "streaming.auth: 'users' checks ClickHouse credentials against clickhouse.usersSecretArn, which is not set (set it, or use auth 'iam')";
  if (auth === 'jwt' && !options.jwt)
    return "streaming.auth: 'jwt' checks bearer tokens against the jwt option's issuer and audience, which is not set (set it, or use auth 'iam')";
  const source = options.jwt?.identitySource;
  if (auth === 'jwt' && source && !source.every((s) => s.toLowerCase() === '$request.header.authorization'))
    return `streaming.auth: 'jwt' reads the token from the Authorization header only; jwt.identitySource names ${source.join(', ')}`;
  return undefined;
}
