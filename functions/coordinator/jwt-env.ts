// The issuer and audiences the streaming door checks bearer tokens against (jwt-check.ts), as the
// CDK app hands them to the function: read without loading the JWT library, which only a door
// configured for JWT imports.
import type { UserCheck } from '../../shared/core/clickhouse-http/auth.js';

export interface JwtConfig {
  issuer: string;
  audience: readonly string[];
}

/** CH_SCATTER_STREAM_JWT: the issuer and audiences the streaming door checks bearer tokens against. */
export const STREAM_JWT_ENV = 'CH_SCATTER_STREAM_JWT';

export function jwtConfigFromEnv(env: NodeJS.ProcessEnv): JwtConfig | undefined {
  const text = env[STREAM_JWT_ENV]?.trim();
  if (!text) return undefined;
  const c = JSON.parse(text) as Partial<JwtConfig>;
  if (typeof c.issuer !== 'string' || !Array.isArray(c.audience) || c.audience.some((a) => typeof a !== 'string'))
    throw new Error(`${STREAM_JWT_ENV}: {"issuer": string, "audience": string[]} expected`);
  return { issuer: c.issuer, audience: c.audience };
}

/** The door's deps with the JWT check as its credential check, when the environment configures one. */
export async function withJwtCheck<D extends { clickhouse?: { userCheck?: UserCheck } }>(deps: D, env: NodeJS.ProcessEnv): Promise<D> {
  const jwt = jwtConfigFromEnv(env);
  if (!jwt || !deps.clickhouse) return deps;
  const { createJwtCheck } = await import('./jwt-check.js');
  return { ...deps, clickhouse: { ...deps.clickhouse, userCheck: createJwtCheck(jwt) } };
}
