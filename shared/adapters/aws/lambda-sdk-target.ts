// The lean invoker's endpoint and credentials as the AWS SDK resolves them, for the cases the
// environment does not decide alone (env-resolution.ts): a shared config file or a profile, container
// or instance credentials, FIPS or dual-stack endpoints, another partition, or a LambdaClient the
// caller gave. Loaded with import() only then, so a Lambda cold start on the default path never
// loads or compiles the SDK.
import { LambdaClient } from '@aws-sdk/client-lambda';
import type { SigV4Credentials } from './sigv4.js';

/**
 * The Invoke endpoint the SDK would use for `client` in `region`, as its endpoint middleware
 * resolves it: a custom endpoint (the client's own, or AWS_ENDPOINT_URL_LAMBDA / the shared config
 * file's) goes through the endpoint rules as their Endpoint parameter; otherwise the rules give
 * https://lambda.<region>.amazonaws.com (FIPS / dual-stack variants when configured).
 */
export async function lambdaEndpointOf(client: LambdaClient, region: string): Promise<URL> {
  const cfg = client.config as LambdaClient['config'] & {
    serviceConfiguredEndpoint?: () => Promise<string | undefined>;
    ignoreConfiguredEndpointUrls?: boolean;
  };
  let custom: string | undefined;
  if (cfg.isCustomEndpoint && cfg.endpoint) {
    const e = await cfg.endpoint();
    custom = `${e.protocol}//${e.hostname}${e.port ? `:${e.port}` : ''}${e.path ?? ''}`;
  } else if (!cfg.ignoreConfiguredEndpointUrls && cfg.serviceConfiguredEndpoint) custom = await cfg.serviceConfiguredEndpoint();
  const [fips, dualStack] = await Promise.all([cfg.useFipsEndpoint(), cfg.useDualstackEndpoint()]);
  return new URL(cfg.endpointProvider({ Region: region, UseFIPS: fips, UseDualStack: dualStack, ...(custom ? { Endpoint: custom } : {}) }).url.href);
}

export interface SdkLambdaTarget {
  url: URL;
  region: string;
  /** The client's credential provider (memoized by the SDK, refreshed before expiry). */
  credentials: () => Promise<SigV4Credentials>;
  /** Destroys the client if it was made here (a given client stays the caller's). */
  close(): void;
}

/** Endpoint, region and credentials from `client`, or from a LambdaClient made for `region` (default AWS_REGION, else us-east-1). */
export async function sdkLambdaTarget(opts: { client?: LambdaClient; region?: string }): Promise<SdkLambdaTarget> {
  const client = opts.client ?? new LambdaClient({ region: opts.region ?? process.env.AWS_REGION ?? 'us-east-1' });
  const owned = opts.client === undefined;
  try {
    const region = opts.region ?? (await client.config.region()) ?? process.env.AWS_REGION ?? 'us-east-1';
    const url = await lambdaEndpointOf(client, region);
    return { url, region, credentials: () => client.config.credentials(), close: () => (owned ? client.destroy() : undefined) };
  } catch (e) {
    if (owned) client.destroy();
    throw e;
  }
}
