// The streaming front door's deployed entry point (a Lambda Function URL in RESPONSE_STREAM mode):
// the coordinator's code and dependencies, with the users secret's check or the JWT check when the
// URL's auth type is NONE (the function checks credentials as the authorizers do behind API Gateway).
import type { CoordinatorDeps } from './deps.js';
import { createTools } from './handler.js';
import { withJwtCheck } from './jwt-env.js';
import { lambdaStreamingHandler } from './stream-handler.js';

const USERS_SECRET_ENV = 'CH_SCATTER_USERS_SECRET_ARN';
const SECRET_MAX_AGE_S = 300;

async function load(): Promise<CoordinatorDeps> {
  const [{ loadDefaultDeps }, { createUserCheck, parseUsersFile }] = await Promise.all([
    import('./deps.js'),
    import('../../shared/core/clickhouse-http/auth.js'),
  ]);
  const deps = await withJwtCheck(await loadDefaultDeps(process.env, createTools().tracer), process.env);
  const arn = process.env[USERS_SECRET_ENV];
  if (!arn || !deps.clickhouse) return deps;
  const { getSecret } = await import('@aws-lambda-powertools/parameters/secrets');
  const text = await getSecret(arn, { maxAge: SECRET_MAX_AGE_S });
  if (typeof text !== 'string') throw new Error('the users secret is not a string');
  return { ...deps, clickhouse: { ...deps.clickhouse, userCheck: createUserCheck(parseUsersFile(text)) } };
}

/** Undefined outside Lambda's runtime (it provides awslambda.streamifyResponse). */
export const handler = lambdaStreamingHandler(load);
