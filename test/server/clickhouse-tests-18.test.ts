// ClickHouse's own Distributed-table tests (test/oracle/clickhouse-tests/) through runQuery on four Debian
// clickhouse-server 18.16 shards behind the real shard function code, rows placed by the router,
// compared with a fifth 18.16 server holding every row. Only the queries 18.16 itself runs on one
// node count (the others need a newer ClickHouse); of those, every answer must equal the single
// node's, or be refused or differ as listed here with its reason.
import { describe, expect, it } from 'vitest';
import { createShardHandler, envShardDeps } from '../../functions/shard/handler.js';
import { routeRows } from '../../shared/core/router/index.js';
import { createHedgeState } from '../../shared/core/scatter/hedge.js';
import { InvokeError, type ShardInvoker } from '../../shared/core/scatter/invoker.js';
import { PLANNERS } from '../../shared/core/scatter/planners.js';
import { runQuery } from '../../shared/core/scatter/run-query.js';
import { createTableColumns } from '../../shared/core/scatter/table-columns.js';
import { createPlacement } from '../../shared/core/sharding/index.js';
import { CHT_CORPUS } from '../oracle/clickhouse-tests/corpus.js';
import { CHT_DATABASE, CHT_TABLES, chtTopology, createChtTable, toChtLocalNames } from '../oracle/clickhouse-tests/tables.js';
import { compareAnswers } from '../oracle/compare.js';
import { type Answer, http18Runner, truncatedAnswer } from '../oracle/harness.js';
import { chHttp, useChServers } from '../support/ch-servers.js';

process.env.POWERTOOLS_LOG_LEVEL = 'SILENT';
process.env.POWERTOOLS_METRICS_DISABLED = 'true';

const servers = useChServers({ n: 5, portBase: 21000 });
const CREATE18 = { allow_experimental_low_cardinality_type: 1 };

/** Answered by one 18.16 node but not so over its shards, with the reason. */
const EXPECTED_18: Record<string, string> = {
  '00850_global_join_dups#2':
    'ClickHouse 26 refuses a JOIN subquery without an alias (206 ALIAS_REQUIRED, joined_subquery_requires_alias = 1 by default), and so does ch-scatter; 18.16 has no such rule',
  '00850_global_join_dups#3':
    'ClickHouse 26 refuses a JOIN subquery without an alias (206 ALIAS_REQUIRED, joined_subquery_requires_alias = 1 by default), and so does ch-scatter; 18.16 has no such rule',
  '00850_global_join_dups#6':
    'ClickHouse 26 refuses a JOIN subquery without an alias (206 ALIAS_REQUIRED, joined_subquery_requires_alias = 1 by default), and so does ch-scatter; 18.16 has no such rule',
  '00850_global_join_dups#7':
    'ClickHouse 26 refuses a JOIN subquery without an alias (206 ALIAS_REQUIRED, joined_subquery_requires_alias = 1 by default), and so does ch-scatter; 18.16 has no such rule',
  '01244_optimize_distributed_group_by_sharding_key#6':
    "a column neither grouped nor aggregated (number under GROUP BY toString(number)): ClickHouse 26 refuses it (215 NOT_AN_AGGREGATE), and so does ch-scatter; 18.16's single node answers it",
  '00857_global_joinsavel_table_alias#3':
    "18.16 names a column written with the aliased table's own name by the alias (t2.name); ClickHouse 26 and ch-scatter name it as written (ot_dist.name)",
  '02175_distributed_join_current_database#1':
    "18.16's SELECT * over a USING join keeps the right table's key too (r.dummy); ClickHouse 26 and ch-scatter hold the key once",
  '02943_order_by_all#7':
    '18.16 has no ORDER BY ALL and sorts by its column `all`; ch-scatter reads ORDER BY ALL as ClickHouse 26 does on every engine, where a selected column named all is 183',
  '02943_order_by_all#11':
    '18.16 has no ORDER BY ALL and sorts by its alias `all`; ch-scatter reads ORDER BY ALL as ClickHouse 26 does on every engine, where a selected column named all is 183',
  '00113_shard_group_array#6':
    '18.16 names an aliased argument by its expression (groupArray(1)(number)); ClickHouse 26 and ch-scatter name it by its alias (i)',
  '00113_shard_group_array#7':
    '18.16 names an aliased argument by its expression (groupArray(1)(number)); ClickHouse 26 and ch-scatter name it by its alias (i)',
  '00113_shard_group_array#8':
    '18.16 names an aliased argument by its expression (groupArray(1)(number)); ClickHouse 26 and ch-scatter name it by its alias (i)',
  '00294_shard_enums#5':
    "a plain IN over the same distributed table: ClickHouse's Distributed table refuses it too under distributed_product_mode = 'deny' (288)",
  '01244_optimize_distributed_group_by_sharding_key#8': '18.16 names count(DISTINCT x) uniqExact(x); ClickHouse 26 and ch-scatter name it countDistinct(x)',
  '01244_optimize_distributed_group_by_sharding_key#9': '18.16 names count(DISTINCT x) uniqExact(x); ClickHouse 26 and ch-scatter name it countDistinct(x)',
  '01519_topK_distributed_parametrized#1':
    "18.16's own merge of topK(30) states keeps 10 values (its Distributed table answers 10 too: remote() over two shards of numbers(1000), where one shard answers 30), and ch-scatter's final stage merges the shards' states on 18.16; the chdb run is equal",
  '01813_distributed_scalar_subqueries_alias#1':
    '18.16 numbers subqueries per server and session (_subquery26); ch-scatter names them as ClickHouse 26 does (_subquery_1)',
  '01813_distributed_scalar_subqueries_alias#2':
    '18.16 numbers subqueries per server and session (_subquery26); ch-scatter names them as ClickHouse 26 does (_subquery_1)',
  '01813_distributed_scalar_subqueries_alias#3':
    '18.16 numbers subqueries per server and session (_subquery26); ch-scatter names them as ClickHouse 26 does (_subquery_1)',
  '00252_shard_global_in_aggregate_function#1':
    '18.16 numbers subqueries per server and session (_subquery26); ch-scatter names them as ClickHouse 26 does (_subquery_1)',
  '00697_in_subquery_shard#1': '18.16 numbers subqueries per server and session (_subquery26); ch-scatter names them as ClickHouse 26 does (_subquery_1)',
  '00697_in_subquery_shard#2': '18.16 numbers subqueries per server and session (_subquery26); ch-scatter names them as ClickHouse 26 does (_subquery_1)',
  '00697_in_subquery_shard#3': '18.16 numbers subqueries per server and session (_subquery26); ch-scatter names them as ClickHouse 26 does (_subquery_1)',
  '00697_in_subquery_shard#4': '18.16 numbers subqueries per server and session (_subquery26); ch-scatter names them as ClickHouse 26 does (_subquery_1)',
  '00697_in_subquery_shard#5': '18.16 numbers subqueries per server and session (_subquery26); ch-scatter names them as ClickHouse 26 does (_subquery_1)',
  '00697_in_subquery_shard#6': '18.16 numbers subqueries per server and session (_subquery26); ch-scatter names them as ClickHouse 26 does (_subquery_1)',
  '00697_in_subquery_shard#7': '18.16 numbers subqueries per server and session (_subquery26); ch-scatter names them as ClickHouse 26 does (_subquery_1)',
  '00697_in_subquery_shard#8': '18.16 numbers subqueries per server and session (_subquery26); ch-scatter names them as ClickHouse 26 does (_subquery_1)',
  '00697_in_subquery_shard#9': '18.16 numbers subqueries per server and session (_subquery26); ch-scatter names them as ClickHouse 26 does (_subquery_1)',
  '00697_in_subquery_shard#10': '18.16 numbers subqueries per server and session (_subquery26); ch-scatter names them as ClickHouse 26 does (_subquery_1)',
  '00976_shard_low_cardinality_achimbab#1':
    "on 18.16 the final stage's uniqMerge of a LowCardinality(Nullable) state is Nullable(UInt64); 18.16's single node types uniq of that column UInt64",
  '01121_remote_scalar_subquery#1': '18.16 numbers subqueries per server and session (_subquery26); ch-scatter names them as ClickHouse 26 does (_subquery_1)',
  '00850_global_join_dups#4':
    'ClickHouse 26 refuses a JOIN subquery without an alias (206 ALIAS_REQUIRED, joined_subquery_requires_alias = 1 by default), and so does ch-scatter; 18.16 has no such rule',
  '00850_global_join_dups#5':
    'ClickHouse 26 refuses a JOIN subquery without an alias (206 ALIAS_REQUIRED, joined_subquery_requires_alias = 1 by default), and so does ch-scatter; 18.16 has no such rule',
  '03204_distributed_with_scalar_subquery#1':
    '18.16 numbers subqueries per server and session (_subquery26); ch-scatter names them as ClickHouse 26 does (_subquery_1)',
  '00857_global_joinsavel_table_alias#2':
    '18.16 names a column qualified by database and table by both (cht.ot.name, its local table); ch-scatter names it as ClickHouse 26 does over the distributed table (ot_dist.name)',
  '02596_build_set_and_remote#5': '18.16 numbers subqueries per server and session (_subquery26); ch-scatter names them as ClickHouse 26 does (_subquery_1)',
};

describe("ClickHouse's Distributed-table tests on 18.16 shards", () => {
  it('answers every query 18.16 runs on one node as that node does, or as listed', async () => {
    const { urls } = servers.current;
    const topo = chtTopology((i) => [{ url: urls[i]! }]);
    for (const url of urls) await chHttp(url, `CREATE DATABASE IF NOT EXISTS ${CHT_DATABASE}`);
    const onShards = new Map<string, number[]>();
    for (const t of CHT_TABLES) {
      // Of a type 18.16 lacks: its queries fail on the single node, so they count as needing a newer ClickHouse.
      if (t.newer) continue;
      const placement = await createPlacement(topo.shards, t.key);
      const routed = routeRows(t.rows, t.dist, topo, placement);
      onShards.set(
        t.dist,
        routed.batches.map((b) => b.length),
      );
      const insert = (rows: readonly unknown[]) => `INSERT INTO ${t.local} FORMAT JSONEachRow\n${rows.map((r) => JSON.stringify(r)).join('\n')}`;
      await Promise.all(
        urls.map(async (url, i) => {
          await chHttp(url, createChtTable(t), CREATE18);
          const rows = i < 4 ? routed.batches[i]! : t.rows;
          if (rows.length) await chHttp(url, insert(rows));
        }),
      );
    }
    const fns = urls.slice(0, 4).map((url, i) => createShardHandler(envShardDeps({ CH_SCATTER_SHARD: JSON.stringify({ shard: i, replicas: [{ url }] }) })));
    const invoker: ShardInvoker = { invoke: async (shard, payload) => fns[shard]!(payload) };
    const single = http18Runner(urls[4]!);
    let n = 0;
    // A query under a truncating overflow mode is asked without completeness: its answer must say truncated, and only that.
    // The columns each distributed table has, read from a shard (DESCRIBE of its local table) as the coordinator reads them.
    const tableColumns = createTableColumns();
    const scatter = async (sql: string, truncates = false): Promise<Answer> => {
      const r = await runQuery(
        { sql, requireComplete: !truncates, timeoutMs: 20_000 },
        { topo, invoker, ...PLANNERS, hedgeState: createHedgeState(), tableColumns, queryId: `cht18-${n++}`, behindApiGateway: false },
      );
      const b = r.body as {
        meta: Answer['meta'];
        data: Answer['rows'];
        totals?: Record<string, unknown>;
        partial?: boolean;
        truncated?: string[];
        shards?: { missing: unknown[] };
        extremes?: Answer['extremes'];
        error?: { code: string; message: string };
      };
      if (r.status !== 200) throw new Error(`HTTP ${r.status} ${b.error?.code}: ${b.error?.message}`);
      const a: Answer = {
        meta: b.meta,
        rows: b.data,
        ...(b.totals !== undefined ? { totals: b.totals } : {}),
        ...(b.extremes !== undefined ? { extremes: b.extremes } : {}),
      };
      return truncates ? truncatedAnswer({ ...a, partial: b.partial === true, truncated: b.truncated ?? [], missing: b.shards?.missing ?? [] }) : a;
    };
    const outcomes: { id: string; kind: 'equal' | 'refused' | 'differs'; problem?: string }[] = [];
    let notOn18 = 0;
    for (const c of CHT_CORPUS) {
      let want: Answer;
      try {
        want = await single(toChtLocalNames(c.sql));
        // ClickHouse's Distributed answer unlike one node's (corpus.ts): its rows over this placement.
        if (c.distributed) want = { ...want, rows: c.distributed((t) => onShards.get(t)!) };
      } catch {
        notOn18++;
        continue;
      }
      try {
        const problem = compareAnswers(await scatter(c.sql, c.truncates === true), want, { ordered: c.ordered === true });
        outcomes.push(problem === undefined ? { id: c.id, kind: 'equal' } : { id: c.id, kind: 'differs', problem: problem.slice(0, 300) });
      } catch (e) {
        outcomes.push({ id: c.id, kind: 'refused', problem: (e instanceof Error ? e.message : String(e)).split('\n')[0]!.slice(0, 300) });
      }
    }
    const count = (k: string) => outcomes.filter((x) => x.kind === k).length;
    console.log(
      `[oracle/clickhouse-tests 18.16] taken ${CHT_CORPUS.length}, 18.16 runs ${outcomes.length} on one node (${notOn18} need a newer ClickHouse): equal ${count('equal')}, refused ${count('refused')}, differing ${count('differs')}`,
    );
    const unlisted = outcomes.filter((x) => x.kind !== 'equal' && !EXPECTED_18[x.id]).map((x) => `${x.id} [${x.kind}]: ${x.problem}`);
    expect(unlisted).toEqual([]);
    const stale = Object.keys(EXPECTED_18).filter((id) => outcomes.find((x) => x.id === id)?.kind === 'equal' || !outcomes.some((x) => x.id === id));
    expect(stale, 'these now answer equal on 18.16: remove them from EXPECTED_18').toEqual([]);
    expect(count('equal')).toBeGreaterThanOrEqual(140);

    // distributed_group_by_no_merge = 1 (18.16 has it) against 18.16's own Distributed answer: the fifth
    // server reads the four shard servers through remote() (no sharding key there, so no shard is skipped:
    // these queries have no condition on a key). Groups that span shards are answered once per shard.
    const { tcpPorts } = servers.current;
    const shardsOf = `'${tcpPorts
      .slice(0, 4)
      .map((p) => `127.0.0.1:${p}`)
      .join(',')}'`;
    const overRemote = (sql: string) => sql.replace(/\bcht\.(\w+)_dist\b/g, (_, t: string) => `remote(${shardsOf}, cht.${t})`);
    const unmerged = [
      'SELECT count() FROM cht.key3_dist',
      'SELECT count() FROM cht.one_dist',
      'SELECT key, count() FROM cht.key3_dist GROUP BY key',
      'SELECT key, count() AS c FROM cht.key3_dist GROUP BY key HAVING c > 2 ORDER BY c DESC LIMIT 2',
      'SELECT DISTINCT key FROM cht.key3_dist',
      'SELECT key FROM cht.key3_dist ORDER BY id DESC LIMIT 1',
      'SELECT uniq(key), max(id) FROM cht.key3_dist',
      'SELECT count() FROM (SELECT key FROM cht.key3_dist LIMIT 1)',
      'SELECT key, count() FROM (SELECT key FROM cht.key3_dist) GROUP BY key',
      // Not folded into the subquery: the outer ORDER BY and LIMIT run once, over every shard's rows.
      'SELECT x FROM (SELECT key AS x, id FROM cht.key3_dist WHERE id > 3) ORDER BY id LIMIT 2',
      // A GLOBAL IN right side runs unmerged too, as 18.16's initiator runs it: its HAVING per shard.
      'SELECT key, count() FROM cht.key3_dist WHERE key GLOBAL IN (SELECT key FROM cht.key3_dist GROUP BY key HAVING count() > 2) GROUP BY key',
      'SELECT count() FROM cht.key3_dist WHERE id GLOBAL IN (SELECT max(id) FROM cht.key3_dist)',
    ];
    for (const sql of unmerged) {
      const q = `${sql} SETTINGS distributed_group_by_no_merge = 1`;
      const want = await single(overRemote(q));
      expect(compareAnswers(await scatter(q), want, { ordered: false }), q).toBeUndefined();
    }
    // A GLOBAL JOIN of aggregate states, merged above it, against 18.16's own answer over remote(): the states ship
    // as the engine's TabSeparated bytes. 18.16 reads a shipped table's types split at commas and spaces, so a state
    // type spelled with a comma (AggregateFunction(uniq, Int32)) is its error 36 there, never another answer.
    const states = `(SELECT key, countState() AS c FROM cht.key3_dist GROUP BY key) AS r`;
    for (const sql of [
      `SELECT l.key, countMerge(r.c) AS c FROM cht.key3_dist AS l GLOBAL ALL INNER JOIN ${states} USING key GROUP BY l.key`,
      `SELECT countMerge(r.c) AS c, count() AS n FROM cht.key3_dist AS l GLOBAL ALL LEFT JOIN ${states} USING key`,
    ]) {
      const want = await single(overRemote(sql));
      expect(compareAnswers(await scatter(sql), want, { ordered: false }), sql).toBeUndefined();
    }
    // ROLLUP inside a GLOBAL IN set whose first column is the sharding key: the set runs once over the whole table on
    // the general path, as 18.16's initiator runs it, its total row's default key 0 included (key 2's set is {2, 0}).
    for (const sql of [
      'SELECT key, count() AS c FROM cht.key3_dist WHERE key GLOBAL IN (SELECT key FROM cht.key3_dist WHERE key = 2 GROUP BY key WITH ROLLUP) GROUP BY key',
      'SELECT count() AS c FROM cht.key3_dist WHERE key GLOBAL NOT IN (SELECT key FROM cht.key3_dist WHERE key = 1 GROUP BY key WITH ROLLUP)',
    ]) {
      const want = await single(overRemote(sql));
      expect(compareAnswers(await scatter(sql), want, { ordered: false }), sql).toBeUndefined();
    }
    // ROLLUP or CUBE inside a plain IN set under distributed_product_mode = 'local': each shard rolls up its own rows, as
    // 18.16's shards do when remote() sends them the set over their local table; one node's set is the whole table's.
    for (const sql of [
      'SELECT id, key FROM cht.key3_dist WHERE id IN (SELECT max(id) FROM cht.key3_dist GROUP BY key WITH ROLLUP)',
      'SELECT count() AS c FROM cht.key3_dist WHERE id NOT IN (SELECT min(id) FROM cht.key3_dist GROUP BY key WITH CUBE)',
    ]) {
      const q = `${sql} SETTINGS distributed_product_mode = 'local'`;
      const want = await single(q.replace('cht.key3_dist', `remote(${shardsOf}, cht.key3)`).replaceAll('cht.key3_dist', 'cht.key3'));
      expect(compareAnswers(await scatter(q), want, { ordered: false }), q).toBeUndefined();
      expect(compareAnswers(want, await single(q.replaceAll('cht.key3_dist', 'cht.key3')), { ordered: false }), q).toBeDefined();
    }
    const uniqStates = `SELECT l.key, uniqMerge(r.u) AS u FROM cht.key3_dist AS l GLOBAL ALL INNER JOIN (SELECT key, uniqState(id) AS u FROM cht.key3_dist GROUP BY key) AS r USING key GROUP BY l.key`;
    expect((await single(overRemote(uniqStates))).rows.length).toBe(3);
    await expect(scatter(uniqStates)).rejects.toThrow(/Odd number of attributes in section structure/);

    // A shard that does not answer is missing, never hidden: the other shards' unmerged rows, labelled partial.
    const down: ShardInvoker = {
      invoke: async (shard, payload) => {
        if (shard === 3) throw new InvokeError('unavailable', 'shard 3 is down');
        return fns[shard]!(payload);
      },
    };
    const q = 'SELECT key, count() FROM cht.key3_dist GROUP BY key SETTINGS distributed_group_by_no_merge = 1';
    const r = await runQuery(
      { sql: q, timeoutMs: 5_000 },
      { topo, invoker: down, ...PLANNERS, hedgeState: createHedgeState(), queryId: 'cht18-down', behindApiGateway: false },
    );
    const b = r.body as { meta: Answer['meta']; data: Answer['rows']; partial: boolean; shards: { missing: { shard: number }[] } };
    expect(r.status).toBe(200);
    expect(b.partial).toBe(true);
    expect(b.shards.missing.map((m) => m.shard)).toEqual([3]);
    const threeShards = `'${tcpPorts
      .slice(0, 3)
      .map((p) => `127.0.0.1:${p}`)
      .join(',')}'`;
    const want = await single(q.replace('cht.key3_dist', `remote(${threeShards}, cht.key3)`));
    expect(compareAnswers({ meta: b.meta, rows: b.data }, want, { ordered: false })).toBeUndefined();

    // The key's constant operands folded on an 18.16 shard's engine (through its shard function): the
    // shards their literals ask, and the same rows, under force_optimize_skip_unused_shards.
    const SKIP = { optimize_skip_unused_shards: 1, force_optimize_skip_unused_shards: 1 };
    const asked = async (sql: string) => {
      const r = await runQuery(
        { sql, settings: SKIP, timeoutMs: 20_000 },
        { topo, invoker, ...PLANNERS, hedgeState: createHedgeState(), queryId: `cht18-${n++}`, behindApiGateway: false },
      );
      const body = r.body as { data: unknown[]; shards: { skipped: number } };
      expect(r.status, JSON.stringify(r.body).slice(0, 300)).toBe(200);
      return { data: body.data, skipped: body.shards.skipped };
    };
    for (const [constants, literals] of [
      ['key = 1 + 2', 'key = 3'],
      ["key = toInt32('4')", 'key = 4'],
      ['key IN (1 + 1, toInt32(5), intDiv(10, 10))', 'key IN (2, 5, 1)'],
    ]) {
      const sql = (where: string) => `SELECT key, value FROM cht.kvs_dist WHERE ${where} ORDER BY key`;
      const got = await asked(sql(constants!));
      expect(got.skipped, constants).toBeGreaterThan(0);
      expect(got, constants).toEqual(await asked(sql(literals!)));
    }
  }, 600_000);
});
