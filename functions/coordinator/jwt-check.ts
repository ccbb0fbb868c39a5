// Bearer tokens checked in the function, as API Gateway's JWT authorizer checks them behind the HTTP
// API (the streaming door has no API Gateway in front of it): the key from the issuer's JWKS (its
// OpenID discovery document's jwks_uri, keys cached for two hours), RSA signatures only, a `kid`
// naming the key, `iss` the issuer, `aud` one of the audiences (`client_id` only when there is no
// `aud`), `exp` after now, `nbf` and `iat` not after now. The caller is the token's `sub` (as the
// HTTP API's route reads it). Every refusal is ClickHouse's 516 with the same words, whatever was wrong.
import { createRemoteJWKSet, jwtVerify, type JWTPayload, type JWTVerifyGetKey } from 'jose';
import { authenticationFailed, type Credentials, type UserCheck } from '../../shared/core/clickhouse-http/auth.js';
import type { JwtConfig } from './jwt-env.js';

/** The signature algorithms API Gateway's JWT authorizer accepts (RSA-based only). */
export const JWT_ALGORITHMS = ['RS256', 'RS384', 'RS512'];
/** How long the issuer's keys are trusted before they are read again (API Gateway: up to two hours). */
const KEYS_MAX_AGE_MS = 2 * 3600_000;
const FETCH_TIMEOUT_MS = 5_000;

/** The issuer's keys, found through its discovery document once (again after a failed read). */
function issuerKeys(issuer: string): JWTVerifyGetKey {
  let keys: Promise<JWTVerifyGetKey> | undefined;
  const discover = async (): Promise<JWTVerifyGetKey> => {
    const r = await fetch(`${issuer.replace(/\/+$/, '')}/.well-known/openid-configuration`, { signal: AbortSignal.timeout(FETCH_TIMEOUT_MS) });
    if (r.status !== 200) throw new Error(`the issuer's discovery document answered ${r.status}`);
    const uri = ((await r.json()) as { jwks_uri?: unknown }).jwks_uri;
    if (typeof uri !== 'string') throw new Error("the issuer's discovery document names no jwks_uri");
    return createRemoteJWKSet(new URL(uri), { cacheMaxAge: KEYS_MAX_AGE_MS, timeoutDuration: FETCH_TIMEOUT_MS });
  };
  return async (header, token) => {
    if (!header.kid) throw new Error('the token names no key (kid)');
    keys ??= discover().catch((e: unknown) => {
      keys = undefined;
      throw e;
    });
    return (await keys)(header, token);
  };
}

function audienceMatches(claims: JWTPayload, audience: readonly string[]): boolean {
  const aud = claims.aud === undefined ? undefined : Array.isArray(claims.aud) ? claims.aud : [claims.aud];
  if (aud !== undefined) return aud.some((a) => audience.includes(a));
  return typeof claims.client_id === 'string' && audience.includes(claims.client_id);
}

/**
 * A check of `Authorization: Bearer <jwt>` against one issuer and its audiences: the token's
 * subject (else `default`), or a rejected 516. Nothing is remembered but the keys: a check is one RSA verification.
 */
export function createJwtCheck(config: JwtConfig, opts: { now?: () => number } = {}): UserCheck {
  const keys = issuerKeys(config.issuer);
  const check = async (c: Credentials): Promise<string> => {
    if (!c.bearer) throw authenticationFailed(c.user);
    let claims: JWTPayload;
    try {
      const nowS = Math.floor((opts.now ?? Date.now)() / 1000);
      ({ payload: claims } = await jwtVerify(c.bearer, keys, {
        issuer: config.issuer,
        algorithms: JWT_ALGORITHMS,
        requiredClaims: ['exp'],
        currentDate: new Date(nowS * 1000),
      }));
      if (typeof claims.iat === 'number' && claims.iat > nowS) throw new Error('issued in the future');
    } catch {
      throw authenticationFailed(undefined);
    }
    if (!audienceMatches(claims, config.audience)) throw authenticationFailed(undefined);
    return typeof claims.sub === 'string' && claims.sub !== '' ? claims.sub : 'default';
  };
  return Object.assign(check, { cached: () => undefined });
}
