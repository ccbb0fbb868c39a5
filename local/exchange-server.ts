// The exchange bucket on one machine: s3rver, a real S3-compatible server (S3's REST API and error
// codes, objects on disk; it checks that a request's access key exists, not its V4 signature), on
// loopback with its data in a temporary directory that goes when the stack stops. The shard
// functions reach it with the same S3 adapter they use in AWS (shared/adapters/aws/s3-exchange.ts),
// path-style, with s3rver's key pair (or, in the simulation, the functions' own dummy keys).
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import S3rver from 's3rver';
import type { ExchangeEnv } from '../functions/shard/exchange-env.js';

export const LOCAL_EXCHANGE_BUCKET = 'ch-scatter-exchange';

export interface LocalExchange {
  /** What each shard function is configured with (CH_SCATTER_EXCHANGE). */
  env: ExchangeEnv;
  /** The server's data directory (tests cut or remove objects there). */
  directory: string;
  stop(): Promise<void>;
}

export interface LocalExchangeOptions {
  /** The buckets to create (default: the local stack's one). */
  buckets?: string[];
  /** Access keys to accept besides s3rver's own (the simulation's functions sign with theirs). */
  accessKeys?: { accessKeyId: string; secretAccessKey: string }[];
}

export async function startLocalExchange(opts: LocalExchangeOptions = {}): Promise<LocalExchange> {
  const directory = mkdtempSync(path.join(os.tmpdir(), 'ch-scatter-exchange-'));
  const buckets = opts.buckets ?? [LOCAL_EXCHANGE_BUCKET];
  // s3rver keeps its accepted keys on one account object; it has no option for more.
  for (const k of opts.accessKeys ?? []) s3rverAccount().createKeyPair(k.accessKeyId, k.secretAccessKey);
  const server = new S3rver({ address: '127.0.0.1', port: 0, directory, silent: true, configureBuckets: buckets.map((name) => ({ name, configs: [] })) });
  let address: { address: string; port: number };
  try {
    address = (await server.run()) as unknown as { address: string; port: number };
  } catch (e) {
    rmSync(directory, { recursive: true, force: true });
    throw e;
  }
  return {
    env: {
      bucket: LOCAL_EXCHANGE_BUCKET,
      region: 'us-east-1',
      endpoint: `http://127.0.0.1:${address.port}`,
      credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
    },
    directory,
    stop: async () => {
      await server.close();
      rmSync(directory, { recursive: true, force: true });
    },
  };
}

/** s3rver's one account, whose key pairs it accepts. */
function s3rverAccount(): { createKeyPair(id: string, secret: string): void } {
  return (createRequire(import.meta.url)('s3rver/lib/models/account.js') as { DUMMY_ACCOUNT: { createKeyPair(id: string, secret: string): void } })
    .DUMMY_ACCOUNT;
}
