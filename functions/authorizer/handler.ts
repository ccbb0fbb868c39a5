// The ClickHouse interface's Lambda authorizer (API Gateway HTTP API, payload 2.0, simple
// responses): checks the credentials ClickHouse clients send (Basic auth, X-ClickHouse-User /
// X-ClickHouse-Key, or ?user=&password=) against the users in a Secrets Manager secret, stored as
// salted password hashes (the local stack's users-file format, see docs/clients.md). The secret is
// cached for five minutes (Powertools), and each verified credential for one minute (the users
// check's own bounded cache, shared/core/clickhouse-http/auth.ts), so a dashboard's steady stream of
// requests costs one scrypt per minute, not one per request. The
// answer says only yes or no: API Gateway then answers 403 without saying which part was wrong.
import type { APIGatewayRequestAuthorizerEventV2 } from 'aws-lambda';
import { createUserCheck, credentialsOf, parseUsersFile, type UserCheck } from '../../shared/core/clickhouse-http/auth.js';

export const SECRET_ENV = 'CH_SCATTER_USERS_SECRET_ARN';
const SECRET_MAX_AGE_S = 300;

export interface AuthorizerDeps {
  /** The secret's text (cached by the caller). */
  readSecret: () => Promise<string>;
  now?: () => number;
}

export interface AuthorizerResult {
  isAuthorized: boolean;
  context?: { user: string };
}

export function createAuthorizer(deps: AuthorizerDeps) {
  let check: { text: string; fn: UserCheck } | undefined;
  return async (event: APIGatewayRequestAuthorizerEventV2): Promise<AuthorizerResult> => {
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(event.headers ?? {})) if (v !== undefined) headers[k.toLowerCase()] = v;
    const creds = credentialsOf(headers, new URLSearchParams(event.rawQueryString ?? ''));
    if (creds.user === undefined || creds.bearer !== undefined) return { isAuthorized: false };
    const hit = check?.fn.cached(creds);
    if (hit !== undefined) return { isAuthorized: true, context: { user: hit } };
    const text = await deps.readSecret();
    // A rotated secret replaces the users (and forgets what was verified against the old one).
    if (!check || check.text !== text) check = { text, fn: createUserCheck(parseUsersFile(text), deps.now ? { now: deps.now } : {}) };
    try {
      const user = await check.fn(creds);
      return { isAuthorized: true, context: { user } };
    } catch {
      return { isAuthorized: false };
    }
  };
}

let authorizer: ReturnType<typeof createAuthorizer> | undefined;

/** The deployed entry point. */
export const handler = async (event: APIGatewayRequestAuthorizerEventV2): Promise<AuthorizerResult> => {
  authorizer ??= createAuthorizer({
    readSecret: async () => {
      const arn = process.env[SECRET_ENV];
      if (!arn) throw new Error(`${SECRET_ENV} is not set`);
      const { getSecret } = await import('@aws-lambda-powertools/parameters/secrets');
      const v = await getSecret(arn, { maxAge: SECRET_MAX_AGE_S });
      if (typeof v !== 'string') throw new Error('the users secret is not a string');
      return v;
    },
  });
  return authorizer(event);
};
