// Functions a query may not call, whatever the shard's own guards: they reach the server's file
// system, the network or other servers, read the server's state or configuration, read other
// tables or dictionaries by name, write outside the query, or stall the shard on purpose.
// `readonly=2` stops writes but not these reads (an embedded engine would happily return
// `file('/etc/passwd')`, a server `getServerSetting('path')`), so the planner refuses them by name
// before any shard is asked. The list was drawn from ClickHouse's own (`SELECT name, alias_to FROM
// system.functions`), aliases included; docs/operations.md documents it. Table-function forms
// (`FROM url(...)`) are refused separately by the analysis; this covers the scalar forms anywhere
// in the statement.
import type { SelectStatement } from '../sql/ast.js';
import { walkStatement } from '../sql/visit.js';
import { deniedAt } from './position.js';

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
      // Server identity, configuration and state.
      'FQDN',
      'fullHostName',
      'hostName',
      'getServerSetting',
      'getMergeTreeSetting',
      'getSettingOrDefault',
      'globalVariable',
      'uptime',
      'version',
      'revision',
      'buildId',
      'serverTimezone',
      'serverTimeZone',
      'getOSKernelVersion',
      'displayName',
      'zookeeperSessionUptime',
      'hasThreadFuzzer',
      'showCertificate',
      'getClientHTTPHeader',
      'tid',
      'getMaxTableNameLengthForDatabase',
      // Who is asking, on which connection, in which query: the runtime's, not the user's.
      'currentDatabase',
      'current_database',
      'database',
      'schema',
      'currentSchemas',
      'current_schemas',
      'currentUser',
      'current_user',
      'session_user',
      'user',
      'authenticatedUser',
      'authUser',
      'connectionId',
      'connection_id',
      'queryID',
      'query_id',
      'currentQueryID',
      'current_query_id',
      'initialQueryID',
      'initial_query_id',
      'initialQueryStartTime',
      'initial_query_start_time',
      // A shard's number inside a Distributed query: meaningless on a shard-local query.
      'shardNum',
      'shardCount',
      'transactionID',
      'transactionLatestSnapshot',
      'transactionOldestSnapshot',
    ].map((n) => [n, "reads the server's state or configuration"] as const),
    ...['hasColumnInTable', 'joinGet', 'joinGetOrNull', 'dictHas', 'dictIsIn', 'catboostEvaluate'].map(
      (n) => [n, 'reads another table, dictionary or model by name'] as const,
    ),
    ...['logTrace', 'generateSerialID'].map((n) => [n, 'writes outside the query (the server log, Keeper)'] as const),
    ...['sleep', 'sleepEachRow'].map((n) => [n, 'stalls the shard on purpose'] as const),
  ].map(([n, why]) => [n.toLowerCase(), why]),
);

/** Refused by prefix: every `dictGet*` reads a dictionary (any source the server can reach) by name. */
const REFUSED_PREFIXES: readonly [string, string][] = [['dictget', 'reads another table, dictionary or model by name']];

/** Why `name` is refused, or undefined when it may be called (names compare case-insensitively, as ClickHouse's). */
export function refusalOf(name: string): string | undefined {
  const n = name.toLowerCase();
  return REFUSED.get(n) ?? REFUSED_PREFIXES.find(([p]) => n.startsWith(p))?.[1];
}

/** Every refused name (lower case), and the refused prefixes, for docs and tests. */
export const REFUSED_FUNCTIONS: ReadonlyMap<string, string> = REFUSED;

/** Throws UNSUPPORTED (ClickHouse's 497 on its interface; with its position) at the first refused function anywhere in the statement. */
export function refuseDangerousFunctions(stmt: SelectStatement): void {
  walkStatement(
    stmt,
    (e) => {
      if (e.kind !== 'function') return;
      const why = refusalOf(e.name);
      if (why) throw deniedAt(`function ${e.name}() is not allowed: it ${why}`, e);
    },
    { subqueries: true },
  );
}
