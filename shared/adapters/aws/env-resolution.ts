// What the AWS SDK would resolve for a service client (endpoint, credentials), read straight from the
// environment when the environment alone decides it, so the coordinator's default path needs no SDK
// code at all: loading and compiling the SDK is most of a cold start's cost beyond our own code.
//
// The environment decides alone when no shared config or credentials file can take part (the SDK
// merges values from ~/.aws/config and ~/.aws/credentials, or the files AWS_CONFIG_FILE and
// AWS_SHARED_CREDENTIALS_FILE name) and no profile is selected: that is Lambda (no such files; the
// role's credentials in AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN; the region in
// AWS_REGION). Then the SDK's answers are:
//  - credentials: its default chain starts with the environment's keys (skipped only under
//    AWS_PROFILE) and memoizes them;
//  - endpoint: AWS_IGNORE_CONFIGURED_ENDPOINT_URLS=true ignores the configured ones; otherwise
//    AWS_ENDPOINT_URL_<SERVICE>, else AWS_ENDPOINT_URL, is used as given; otherwise the endpoint
//    rules give https://<prefix>.<region>.amazonaws.com for a region of the standard `aws` partition
//    without FIPS or dual-stack.
// Anything else (a config file, a profile, FIPS, dual-stack, another partition, a value the SDK
// would refuse) returns undefined, and the caller asks the SDK itself, loaded then.
// test/unit/scatter/env-resolution.test.ts compares these answers with the SDK's.
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { SigV4Credentials } from './sigv4.js';

/** The standard partition's regions, as the SDK's partition table matches them (regionRegex of `aws`). */
const AWS_PARTITION_REGION = /^(us|eu|ap|sa|ca|me|af|il|mx)-\w+-\d+$/;

/** A service as the SDK's endpoint settings name it: AWS_ENDPOINT_URL_<envSuffix>, and <prefix>.<region>.amazonaws.com. */
export interface ServiceNames {
  envSuffix: string;
  prefix: string;
}
export const LAMBDA: ServiceNames = { envSuffix: 'LAMBDA', prefix: 'lambda' };
export const SECRETS_MANAGER: ServiceNames = { envSuffix: 'SECRETS_MANAGER', prefix: 'secretsmanager' };
export const S3: ServiceNames = { envSuffix: 'S3', prefix: 's3' };

/** The SDK's home directory (HOME, USERPROFILE, HOMEDRIVE+HOMEPATH, else the OS's). */
function homeDir(env: NodeJS.ProcessEnv): string {
  if (env.HOME) return env.HOME;
  if (env.USERPROFILE) return env.USERPROFILE;
  if (env.HOMEPATH) return `${env.HOMEDRIVE ?? 'C:/'}${env.HOMEPATH}`;
  return homedir();
}

/** True when no shared config/credentials file and no profile can change what the environment says. */
export function environmentDecides(env: NodeJS.ProcessEnv = process.env): boolean {
  if (env.AWS_PROFILE || env.AWS_CONFIG_FILE || env.AWS_SHARED_CREDENTIALS_FILE) return false;
  const home = homeDir(env);
  return !existsSync(join(home, '.aws', 'config')) && !existsSync(join(home, '.aws', 'credentials'));
}

/** An SDK boolean setting: unset -> false, "true"/"false", anything else undefined (the SDK throws on it). */
function flag(env: NodeJS.ProcessEnv, name: string): boolean | undefined {
  const v = env[name];
  if (v === undefined || v === 'false') return false;
  return v === 'true' ? true : undefined;
}

/** The SDK's credentials when it would take them from the environment; else undefined. */
export function credentialsFromEnv(env: NodeJS.ProcessEnv = process.env): SigV4Credentials | undefined {
  const accessKeyId = env.AWS_ACCESS_KEY_ID;
  const secretAccessKey = env.AWS_SECRET_ACCESS_KEY;
  if (!accessKeyId || !secretAccessKey || !environmentDecides(env)) return undefined;
  const sessionToken = env.AWS_SESSION_TOKEN;
  return { accessKeyId, secretAccessKey, ...(sessionToken ? { sessionToken } : {}) };
}

/** The endpoint the SDK would use for `service` in `region` when the environment decides it; else undefined. */
export function endpointFromEnv(service: ServiceNames, region: string, env: NodeJS.ProcessEnv = process.env): URL | undefined {
  if (!environmentDecides(env)) return undefined;
  const fips = flag(env, 'AWS_USE_FIPS_ENDPOINT');
  const dualStack = flag(env, 'AWS_USE_DUALSTACK_ENDPOINT');
  const ignoreConfigured = flag(env, 'AWS_IGNORE_CONFIGURED_ENDPOINT_URLS');
  if (fips !== false || dualStack !== false || ignoreConfigured === undefined) return undefined;
  const configured = ignoreConfigured ? undefined : env[`AWS_ENDPOINT_URL_${service.envSuffix}`] || env.AWS_ENDPOINT_URL || undefined;
  if (configured) {
    try {
      return new URL(configured);
    } catch {
      return undefined; // the SDK reports its own error for it
    }
  }
  return AWS_PARTITION_REGION.test(region) ? new URL(`https://${service.prefix}.${region}.amazonaws.com/`) : undefined;
}
