// The exchange bucket on one machine: s3rver, a real S3-compatible server (it checks SigV4
// signatures, stores objects on disk), on loopback with its data in a temporary directory that
// goes when the stack stops. The shard functions reach it with the same S3 adapter they use in AWS
// (shared/adapters/aws/s3-exchange.ts), path-style, with s3rver's one key pair.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
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

export async function startLocalExchange(): Promise<LocalExchange> {
  const directory = mkdtempSync(path.join(os.tmpdir(), 'ch-scatter-exchange-'));
  const server = new S3rver({ address: '127.0.0.1', port: 0, directory, silent: true, configureBuckets: [{ name: LOCAL_EXCHANGE_BUCKET, configs: [] }] });
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
