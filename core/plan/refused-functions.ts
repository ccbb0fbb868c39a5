// Functions a query may not call, whatever the shard's own guards: they reach the server's file
// system, the network or other servers, or introspect the process. `readonly=2` stops writes but
// not these reads (an embedded engine would happily return `file('/etc/passwd')`), so the planner
// refuses them by name before any shard is asked. Table-function forms (`FROM url(...)`) are
// refused separately by the analysis; this covers the scalar forms anywhere in the statement.
import type { SelectStatement } from '../sql/ast.js';
import { walkStatement } from '../sql/visit.js';
import { errorAt } from './position.js';

const REFUSED = new Map<string, string>(
  [
    ...['file', 'url', 's3', 's3Cluster', 'hdfs', 'hdfsCluster', 'azureBlobStorage', 'gcs', 'iceberg', 'deltaLake', 'hudi'].map(
      (n) => [n, 'reads files or URLs outside the table'] as const,
    ),
    ...['remote', 'remoteSecure', 'cluster', 'clusterAllReplicas', 'mysql', 'postgresql', 'jdbc', 'odbc', 'mongodb', 'redis', 'sqlite'].map(
      (n) => [n, 'reaches another server'] as const,
    ),
    ...['executable', 'executablePool', 'input'].map((n) => [n, 'runs or reads outside the query'] as const),
    ...[
      'addressToLine',
      'addressToLineWithInlines',
      'addressToSymbol',
      'demangle',
      'filesystemAvailable',
      'filesystemCapacity',
      'filesystemUnreserved',
      'filesystemFree',
      'getServerPort',
      'tcpPort',
      'serverUUID',
      'getMacro',
      'getSetting',
      'currentProfiles',
      'enabledProfiles',
      'defaultProfiles',
      'currentRoles',
      'enabledRoles',
      'defaultRoles',
    ].map((n) => [n, 'introspects the server'] as const),
  ].map(([n, why]) => [n.toLowerCase(), why]),
);

/** Throws UNSUPPORTED (with its position) at the first refused function anywhere in the statement. */
export function refuseDangerousFunctions(stmt: SelectStatement): void {
  walkStatement(
    stmt,
    (e) => {
      if (e.kind !== 'function') return;
      const why = REFUSED.get(e.name.toLowerCase());
      if (why) throw errorAt('UNSUPPORTED', `function ${e.name}() is not allowed: it ${why}`, e);
    },
    { subqueries: true },
  );
}
