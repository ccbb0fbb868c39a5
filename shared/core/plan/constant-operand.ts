// A constant expression on the other side of the sharding key (`key = toInt32(xxHash32(0))`,
// `key IN (1 + 1, 3)`): ClickHouse's analyzer folds it before it picks shards, so it is a condition
// on the key. The planner has it folded by one engine (key-constants.ts); one it does not fold (its
// value may differ between that engine and a shard's, or no engine was given) goes to every shard,
// whose filter keeps exactly the rows ClickHouse's chosen shard would.
import type { Expr } from '../sql/ast.js';
import { aggregateName } from '../sql/aggregate-names.js';
import { walkExpr } from '../sql/visit.js';
import { printExpr } from '../sql/print.js';
import { ROW_SENSITIVE } from './row-sensitive.js';

/**
 * Constant within one engine's query, yet not across engines: the clock, the server, the session, or
 * what an engine holds (dictionaries, settings). A value one engine gives another may not.
 */
const PER_ENGINE: ReadonlySet<string> = new Set(
  [
    'now',
    'now64',
    'today',
    'yesterday',
    'current_timestamp',
    'currentTimestamp',
    'localtimestamp',
    'UTCTimestamp',
    'UTC_timestamp',
    'sysdate',
    'hostName',
    'hostname',
    'fqdn',
    'uptime',
    'serverUUID',
    'shardNum',
    'shardCount',
    'getMacro',
    'queryID',
    'query_id',
    'initialQueryID',
    'initial_query_id',
    'initialQueryStartTime',
    'tcpPort',
    'getServerPort',
    'getSetting',
    'getSettingOrDefault',
    'timezone',
    'timeZone',
    'serverTimezone',
    'serverTimeZone',
    'version',
    'revision',
    'buildId',
    'displayName',
    'currentDatabase',
    'database',
    'currentUser',
    'user',
    'current_user',
    'currentProfiles',
    'enabledProfiles',
    'defaultProfiles',
    'currentRoles',
    'enabledRoles',
    'defaultRoles',
    'currentSchemas',
    'current_schemas',
    'connectionId',
    'connection_id',
    'getClientHTTPHeader',
    'filesystemAvailable',
    'filesystemCapacity',
    'filesystemUnreserved',
    'zookeeperSessionUptime',
    'transactionID',
    'transactionLatestSnapshot',
    'transactionOldestSnapshot',
    'globalVariable',
    'joinGet',
    'joinGetOrNull',
  ].map((n) => n.toLowerCase()),
);

const isPerEngine = (name: string): boolean => PER_ENGINE.has(name) || name.startsWith('dict');

/** No column, subquery, parameter, lambda, aggregate, window or per-row/random function: one value per query. */
export function isConstantOperand(e: Expr): boolean {
  return constantKind(e) !== 'none';
}

/** A constant operand one engine may fold for every shard: no alias (shared with other clauses) and no per-engine function. */
export function isFoldableOperand(e: Expr): boolean {
  return e.alias === undefined && constantKind(e) === 'foldable';
}

/** The operand's text: what its folded value is known by (the split and the renaming copy nodes, never their text). */
export const constantText = (e: Expr): string => printExpr(e);

function constantKind(e: Expr): 'none' | 'perEngine' | 'foldable' {
  let kind: 'none' | 'perEngine' | 'foldable' = 'foldable';
  walkExpr(e, (x) => {
    if (x.kind === 'column' || x.kind === 'asterisk' || x.kind === 'subquery' || x.kind === 'param' || x.kind === 'lambda') kind = 'none';
    else if (x.kind === 'function') {
      const name = x.name.toLowerCase();
      if (x.over !== undefined || ROW_SENSITIVE.has(name) || aggregateName(x.name) !== undefined) kind = 'none';
      else if (isPerEngine(name)) kind = 'perEngine';
    }
    return kind !== 'none';
  });
  return kind;
}
