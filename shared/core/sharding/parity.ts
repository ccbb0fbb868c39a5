// The Distributed parity check (docs/parity.md#the-check): the topology must agree with the ClickHouse cluster
// and the Distributed table's DDL, or queries that ClickHouse prunes by sharding key silently
// miss rows the router placed elsewhere. Compared: shard count and weights (system.clusters),
// the sharding expression and key column type (system.tables.engine_full, system.columns),
// the cluster and local table the Distributed table points at. Shard ORDER cannot be proven
// over the wire; a replica host seen only under another shard_num is a warning, never a failure.
import type { Topology } from '../config/schema.js';
import { qualifyTable } from '../config/load.js';
import type { ClickHouseAccess } from '../clickhouse/port.js';
import { ScatterError } from '../errors.js';
import { quoteStringLiteral } from '../sql/quote.js';
import { distributedArgs, normalizeExpr, unquoteName } from './ddl-args.js';
import { describeColumns } from '../clickhouse/describe-columns.js';

export interface ParityReport {
  ok: boolean;
  problems: string[];
  warnings: string[];
}

export interface ParityOptions {
  /** Distributed table to check (default: distributedCheck.table). */
  table?: string;
}

interface ClusterRow {
  shard_num: number | string;
  shard_weight: number | string;
  replica_num: number | string;
  host_name: string;
  host_address: string;
  port: number | string;
}

/** The sharding expression our placement reproduces for a table's key. */
export function expectedShardingExpr(key: { column: string; function: string }): string {
  return key.function === 'identity' ? key.column : `xxHash64(${key.column})`;
}

function hostOf(url: string | undefined): string | undefined {
  if (!url) return undefined;
  try {
    return new URL(url).hostname.replace(/^\[|\]$/g, '');
  } catch {
    return undefined;
  }
}

export async function checkParity(topo: Topology, access: ClickHouseAccess, opts: ParityOptions = {}): Promise<ParityReport> {
  const problems: string[] = [];
  const warnings: string[] = [];
  const done = () => ({ ok: problems.length === 0, problems, warnings });
  const q = async <T>(sql: string): Promise<T[]> => (await access.query(sql)).rows as T[];

  // 1. The cluster: shard count and weights, by position (shards[i] is shard_num i+1).
  let clusterRows: ClusterRow[];
  try {
    clusterRows = await q<ClusterRow>(
      `SELECT shard_num, shard_weight, replica_num, host_name, host_address, port FROM system.clusters WHERE cluster = ${quoteStringLiteral(topo.cluster)} ORDER BY shard_num, replica_num`,
    );
  } catch (e) {
    problems.push(`cannot read system.clusters on ${access.describe}: ${(e as Error).message}`);
    return done();
  }
  if (clusterRows.length === 0) {
    const names = (await q<{ cluster: string }>('SELECT DISTINCT cluster FROM system.clusters ORDER BY cluster').catch(() => [])).map((r) => r.cluster);
    problems.push(`cluster "${topo.cluster}" is not defined on ${access.describe} (remote_servers has: ${names.join(', ') || 'none'})`);
  } else {
    const weights = new Map<number, number>();
    for (const r of clusterRows) weights.set(Number(r.shard_num), Number(r.shard_weight));
    if (weights.size !== topo.shards.length) {
      problems.push(`shard count: config has ${topo.shards.length} shards, cluster "${topo.cluster}" has ${weights.size}`);
    }
    topo.shards.forEach((s, i) => {
      const w = weights.get(i + 1);
      if (w !== undefined && w !== s.weight) problems.push(`weight of shards[${i}] (shard_num ${i + 1}): config ${s.weight}, cluster ${w}`);
    });
    // Advisory: a configured replica host that the cluster lists only under other shard numbers.
    for (const [i, s] of topo.shards.entries())
      s.replicas.forEach((r, j) => {
        const host = hostOf(r.url);
        if (!host) return;
        const nums = new Set(clusterRows.filter((c) => c.host_name === host || c.host_address === host).map((c) => Number(c.shard_num)));
        if (nums.size > 0 && !nums.has(i + 1)) {
          warnings.push(
            `shards[${i}].replicas[${j}] host ${host} appears in cluster "${topo.cluster}" under shard_num ${[...nums].join(', ')}, not ${i + 1}: check the shard order`,
          );
        }
      });
  }

  // 2. The Distributed table: engine, target, sharding expression, key column type.
  const tableName = opts.table ?? topo.distributedCheck?.table;
  if (!tableName) {
    warnings.push('no distributedCheck.table configured: checked the cluster only, not a sharding expression');
    return done();
  }
  const dist = qualifyTable(tableName);
  const cfg = topo.tables[dist];
  const [db, name] = [dist.slice(0, dist.indexOf('.')), dist.slice(dist.indexOf('.') + 1)];
  let tables: { engine: string; engine_full: string }[];
  try {
    tables = await q(`SELECT engine, engine_full FROM system.tables WHERE database = ${quoteStringLiteral(db)} AND name = ${quoteStringLiteral(name)}`);
  } catch (e) {
    problems.push(`cannot read system.tables on ${access.describe}: ${(e as Error).message}`);
    return done();
  }
  if (tables.length === 0) {
    problems.push(`table ${dist} does not exist on ${access.describe}`);
    return done();
  }
  const args = tables[0]!.engine === 'Distributed' ? distributedArgs(tables[0]!.engine_full) : undefined;
  if (!args || args.length < 3) {
    problems.push(`table ${dist} is not a Distributed table (engine: ${tables[0]!.engine_full || tables[0]!.engine})`);
    return done();
  }
  const [clusterArg, dbArg, tableArg, exprArg] = [unquoteName(args[0]!), unquoteName(args[1]!), unquoteName(args[2]!), args[3]];
  if (clusterArg !== topo.cluster) problems.push(`${dist} reads cluster "${clusterArg}", config cluster is "${topo.cluster}"`);
  if (cfg) {
    const target = `${dbArg === '' || /^currentDatabase\(\)$/i.test(dbArg) ? db : dbArg}.${tableArg}`;
    if (target !== cfg.local) problems.push(`${dist} points at ${target}, config local table is ${cfg.local}`);
  } else if (!topo.distributedCheck?.shardingExpr) {
    problems.push(`${dist} is not a configured table (tables: ${Object.keys(topo.tables).join(', ')}), so there is no sharding key to compare`);
  }
  const pinned = topo.distributedCheck?.shardingExpr;
  const expected = pinned ?? (cfg ? expectedShardingExpr(cfg.shardingKey) : undefined);
  if (expected !== undefined) {
    if (exprArg === undefined) {
      if (topo.shards.length > 1 || weightsCount(clusterRows) > 1) problems.push(`${dist} has no sharding expression; config expects ${expected}`);
    } else if (normalizeExpr(exprArg) !== normalizeExpr(expected)) {
      problems.push(`sharding expression of ${dist}: DDL has ${exprArg}, config ${pinned ? 'distributedCheck.shardingExpr is' : 'places rows by'} ${expected}`);
    }
  }
  // The declared key type decides the hashed bytes (UInt32 42 and UInt64 42 hash differently).
  if (cfg && !pinned) {
    const key = cfg.shardingKey;
    const cols = await q<{ type: string }>(
      `SELECT type FROM system.columns WHERE database = ${quoteStringLiteral(db)} AND table = ${quoteStringLiteral(name)} AND name = ${quoteStringLiteral(key.column)}`,
    ).catch(() => undefined);
    if (cols && cols.length === 0) problems.push(`${dist} has no column ${key.column} (the configured sharding key)`);
    else if (cols && cols[0]!.type !== key.type)
      problems.push(`type of ${dist}.${key.column}: table has ${cols[0]!.type}, config says ${key.type} (the type decides the hashed bytes)`);
  }
  return done();
}

function weightsCount(rows: ClusterRow[]): number {
  return new Set(rows.map((r) => Number(r.shard_num))).size;
}

/** For the runtime: throw CONFIG_INVALID listing every problem; warnings go to `warn`. */
export async function assertParityAtStartup(
  topo: Topology,
  access: ClickHouseAccess,
  warn: (msg: string) => void = (m) => console.warn(m),
): Promise<ParityReport> {
  const report = await checkParity(topo, access);
  for (const w of report.warnings) warn(`parity warning: ${w}`);
  if (!report.ok) {
    throw new ScatterError('CONFIG_INVALID', `Distributed parity check failed:\n${report.problems.join('\n')}`, { details: { problems: report.problems } });
  }
  return report;
}

/**
 * Every shard's local table has the same columns (names, types, order) as the first shard's: the
 * plan spells `*` out from one shard's DESCRIBE, which holds for all only if their DDL agrees.
 * `shardAccess(i)` reads shard i (through its shard function on the coordinator).
 */
export async function checkColumnParity(topo: Topology, shardAccess: (shard: number) => ClickHouseAccess): Promise<string[]> {
  const problems: string[] = [];
  for (const [dist, cfg] of Object.entries(topo.tables)) {
    const local = qualifyTable(cfg.local);
    const seen = await Promise.all(
      topo.shards.map((_, i) =>
        describeColumns(shardAccess(i), local).then(
          (cols) => cols.map((c) => `${c.name} ${c.type}`).join(', '),
          (e: unknown) => {
            problems.push(`cannot read the columns of ${local} on shard ${i}: ${(e as Error).message}`);
            return undefined;
          },
        ),
      ),
    );
    const first = seen.findIndex((s) => s !== undefined);
    for (const [i, s] of seen.entries())
      if (s !== undefined && first >= 0 && s !== seen[first])
        problems.push(`columns of ${qualifyTable(dist)}: shard ${i}'s ${local} has (${s}), shard ${first}'s has (${seen[first]})`);
  }
  return problems;
}
