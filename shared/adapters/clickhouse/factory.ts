// Picking the ClickHouse adapter for one replica of the topology config: a `url` replica is a
// server reached over HTTP, an `embedded` replica is a chdb data directory opened in THIS
// process (the local stack gives each replica its own process; chdb allows one directory per
// process). chdb is only loaded when an embedded replica is asked for.
import type { ReplicaConfig } from '../../core/config/schema.js';
import type { ClickHouseAccess } from '../../core/clickhouse/port.js';

export interface Credentials {
  username: string;
  password: string;
}

export async function createAccess(replica: ReplicaConfig, credentials?: Credentials, opts: { database?: string } = {}): Promise<ClickHouseAccess> {
  if (replica.url) {
    // Loaded on demand too: an embedded-only process never loads @clickhouse/client.
    const { createHttpAccess } = await import('./http.js');
    return createHttpAccess({ url: replica.url, username: credentials?.username, password: credentials?.password, database: opts.database });
  }
  if (replica.embedded) {
    const { createEmbeddedAccess } = await import('./embedded.js');
    return createEmbeddedAccess({ path: replica.embedded });
  }
  throw new Error('a replica needs exactly one of "url" or "embedded"');
}
