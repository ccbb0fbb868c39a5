// The reach corpus: every SQL-bearing position of the grammar x every read a client must never
// make, sent through every route of a running stack. Each case must be refused with its code (the
// JSON API's class with a position; ClickHouse's code on its interface), as a 4xx, and no shard
// function may be asked anything while it is answered: no engine ran any part of it. Shared by
// the chdb run (reach.test.ts) and the 18.16 run (reach-18.test.ts).

export const DIST = 'analytics.sensor_events_dist';
export const LOCAL = 'analytics.sensor_events';
export const SECRET = 'default.secret_unconfigured';
/** A value only the unconfigured table holds: it must never come back. */
export const SECRET_MARK = 'CARD-4111-REACH';

export const SHARD_DDL = [
  'CREATE DATABASE IF NOT EXISTS analytics',
  `CREATE TABLE ${LOCAL} (sensor String, site String, value Float64) ENGINE = MergeTree ORDER BY sensor`,
  `CREATE TABLE ${SECRET} (owner String, card String) ENGINE = MergeTree ORDER BY owner`,
  `INSERT INTO ${SECRET} VALUES ('alice', '${SECRET_MARK}')`,
];

export const reachTopology = (shards: unknown[]) => ({
  cluster: 'reach',
  shards,
  tables: { [DIST]: { local: LOCAL, shardingKey: { column: 'sensor', type: 'String', function: 'xxHash64' } } },
});

/** Rows for one shard: `n` sensors (the shard's own rows; the placement does not matter for refusals). */
export const rowsSql = (shard: number, n: number) =>
  `INSERT INTO ${LOCAL} SELECT concat('s-${shard}-', toString(number)), concat('site-', toString(number % 3)), number FROM numbers(${n})`;

interface Forbidden {
  name: string;
  /** A scalar expression that makes the read. */
  scalar: string;
  /** The table it reads, for the table positions. */
  table?: string;
  json: 'UNKNOWN_TABLE' | 'UNSUPPORTED' | 'TOO_LARGE';
  ch: number;
  /** ClickHouse's HTTP status for `ch` when it is not a 4xx (ClickHouse's own table: 48 is 501, 396 is 500). */
  chStatus?: number;
  /** The catalog engine may answer it (its own views, the engine's tables): not a refusal there. */
  catalogAllows?: boolean;
}

export const FORBIDDEN: Forbidden[] = [
  { name: 'unconfigured table', scalar: `(SELECT groupArray((owner, card)) FROM ${SECRET})`, table: SECRET, json: 'UNKNOWN_TABLE', ch: 60 },
  { name: 'local table named directly', scalar: `(SELECT count() FROM ${LOCAL})`, table: LOCAL, json: 'UNKNOWN_TABLE', ch: 60 },
  { name: 'system.processes', scalar: '(SELECT groupArray(query) FROM system.processes)', table: 'system.processes', json: 'UNKNOWN_TABLE', ch: 60 },
  { name: 'system.clusters', scalar: '(SELECT groupArray(host_name) FROM system.clusters)', table: 'system.clusters', json: 'UNKNOWN_TABLE', ch: 60 },
  { name: 'system.parts', scalar: '(SELECT groupArray(name) FROM system.parts)', table: 'system.parts', json: 'UNKNOWN_TABLE', ch: 60 },
  {
    name: 'system.tables',
    scalar: '(SELECT groupArray(name) FROM system.tables)',
    table: 'system.tables',
    json: 'UNKNOWN_TABLE',
    ch: 60,
    catalogAllows: true,
  },
  {
    name: 'system.settings',
    scalar: '(SELECT groupArray(value) FROM system.settings)',
    table: 'system.settings',
    json: 'UNKNOWN_TABLE',
    ch: 60,
    catalogAllows: true,
  },
  { name: 'getServerSetting', scalar: "getServerSetting('path')", json: 'UNSUPPORTED', ch: 497 },
  { name: 'hostName', scalar: 'hostName()', json: 'UNSUPPORTED', ch: 497 },
  { name: 'uptime', scalar: 'uptime()', json: 'UNSUPPORTED', ch: 497 },
  { name: 'getSetting', scalar: "getSetting('max_threads')", json: 'UNSUPPORTED', ch: 497 },
  { name: 'hasColumnInTable', scalar: "hasColumnInTable('default', 'secret_unconfigured', 'card')", json: 'UNSUPPORTED', ch: 497 },
  { name: 'sleep', scalar: '(SELECT sleep(2))', json: 'UNSUPPORTED', ch: 497 },
  { name: 'sleepEachRow', scalar: '(SELECT sleepEachRow(1))', json: 'UNSUPPORTED', ch: 497 },
  // Constant tables run on the shards, but only bounded and reading nothing else.
  { name: 'numbers() over the row cap', scalar: '(SELECT count() FROM numbers(10, 10000000000))', json: 'TOO_LARGE', ch: 396, chStatus: 500 },
  { name: 'zeros() over the row cap', scalar: '(SELECT count() FROM zeros(1000001))', json: 'TOO_LARGE', ch: 396, chStatus: 500 },
  { name: 'numbers() of a computed count', scalar: '(SELECT count() FROM numbers(toUInt64(1e12)))', json: 'UNSUPPORTED', ch: 48, chStatus: 501 },
  { name: 'generateRandom()', scalar: "(SELECT any(a) FROM generateRandom('a UInt8', 1) LIMIT 1)", json: 'UNSUPPORTED', ch: 48, chStatus: 501 },
  { name: 'file() inside values()', scalar: "(SELECT any(x) FROM values('x String', file('/etc/passwd')))", json: 'UNSUPPORTED', ch: 497 },
];

/**
 * Positions of a scalar read in a query over the distributed table ({S}): every clause that holds
 * an expression (the grammar's SAMPLE, LIMIT, OFFSET and SETTINGS take literals only, so no SQL).
 */
export const DISTRIBUTED_POSITIONS: Record<string, string> = {
  'SELECT list': `SELECT count() AS c, {S} AS t FROM ${DIST}`,
  WHERE: `SELECT count() AS c FROM ${DIST} WHERE length(toString({S})) >= 0`,
  PREWHERE: `SELECT count() AS c FROM ${DIST} PREWHERE length(toString({S})) >= 0`,
  HAVING: `SELECT site, count() AS c FROM ${DIST} GROUP BY site HAVING length(toString({S})) >= 0`,
  'ORDER BY': `SELECT site, count() AS c FROM ${DIST} GROUP BY site ORDER BY length(toString({S})), site`,
  'GROUP BY': `SELECT site, count() AS c FROM ${DIST} GROUP BY site, length(toString({S}))`,
  'LIMIT BY': `SELECT site, sensor FROM ${DIST} ORDER BY site LIMIT 1 BY site, length(toString({S}))`,
  window: `SELECT sensor, sum(value) OVER (PARTITION BY length(toString({S}))) AS w FROM ${DIST}`,
  'WINDOW clause': `SELECT sensor, sum(value) OVER w AS s FROM ${DIST} WINDOW w AS (ORDER BY length(toString({S})))`,
  'aggregate argument': `SELECT sum(length(toString({S}))) AS c FROM ${DIST}`,
  'inner FROM subquery': `SELECT * FROM (SELECT count() AS c, {S} AS t FROM ${DIST})`,
  'outer SELECT over a subquery': `SELECT c, {S} AS t FROM (SELECT count() AS c FROM ${DIST})`,
  'FROM-less subquery under CROSS JOIN': `SELECT a.c, b.t FROM (SELECT count() AS c FROM ${DIST}) AS a CROSS JOIN (SELECT {S} AS t) AS b`,
  'FROM-less subquery under LEFT JOIN': `SELECT a.c, b.t FROM (SELECT count() AS c, 1 AS j FROM ${DIST}) AS a LEFT JOIN (SELECT {S} AS t, 1 AS j) AS b ON a.j = b.j`,
  'FROM-less UNION branch': `SELECT toString(count()) AS t FROM ${DIST} UNION ALL SELECT toString({S}) AS t`,
  'WITH expression': `WITH {S} AS w SELECT count() AS c, w FROM ${DIST}`,
  'IN subquery': `SELECT count() AS c FROM ${DIST} WHERE sensor IN (SELECT toString({S}))`,
  'GLOBAL IN subquery': `SELECT count() AS c FROM ${DIST} WHERE sensor GLOBAL IN (SELECT toString({S}))`,
  'nested scalar subqueries': `SELECT count() AS c, (SELECT (SELECT {S})) AS t FROM ${DIST}`,
  'lambda body': `SELECT count() AS c, arrayMap(x -> toString({S}), [1]) AS t FROM ${DIST}`,
  'CASE branch': `SELECT count() AS c, CASE WHEN count() > 0 THEN toString({S}) ELSE '' END AS t FROM ${DIST}`,
  'ARRAY JOIN': `SELECT count() AS c FROM ${DIST} ARRAY JOIN [toString({S})] AS a`,
  'JOIN ON': `SELECT count() AS c FROM ${DIST} AS a GLOBAL JOIN (SELECT 1 AS j) AS b ON length(toString({S})) >= b.j`,
};

/** Positions of a table read ({T}). */
export const TABLE_POSITIONS: Record<string, string> = {
  FROM: `SELECT count() AS c FROM {T}`,
  JOIN: `SELECT count() AS c FROM ${DIST} AS a CROSS JOIN {T} AS b`,
  'GLOBAL JOIN': `SELECT count() AS c FROM ${DIST} AS a GLOBAL CROSS JOIN {T} AS b`,
  'IN table': `SELECT count() AS c FROM ${DIST} WHERE sensor IN {T}`,
  'JOIN of a subquery': `SELECT a.c FROM (SELECT count() AS c FROM ${DIST}) AS a CROSS JOIN (SELECT count() AS n FROM {T}) AS b`,
};

/** Positions with no distributed table: the catalog engine's route (the ClickHouse interface). */
export const CATALOG_POSITIONS: Record<string, string> = {
  'SELECT list': 'SELECT {S} AS t',
  'scalar inside a FROM subquery': 'SELECT * FROM (SELECT {S} AS t)',
  'two FROM subqueries deep': 'SELECT * FROM (SELECT * FROM (SELECT (SELECT {S}) AS t))',
  WHERE: "SELECT name FROM system.tables WHERE length(toString({S})) >= 0 AND database = 'analytics'",
  'UNION branch': 'SELECT 1 AS a UNION ALL SELECT length(toString({S}))',
  'CROSS JOIN': 'SELECT * FROM (SELECT 1 AS a) AS x CROSS JOIN (SELECT {S} AS t) AS y',
};

export interface ReachCase {
  route: Route;
  position: string;
  forbidden: string;
  sql: string;
  json: Forbidden['json'];
  ch: number;
  chStatus?: number;
}

export type Route = 'json /query auto' | 'json /query general' | 'json /query fast' | 'json /explain' | 'clickhouse GET' | 'clickhouse POST';
const JSON_ROUTES: Route[] = ['json /query auto', 'json /query general', 'json /query fast', 'json /explain'];
const CH_ROUTES: Route[] = ['clickhouse GET', 'clickhouse POST'];

export function reachCases(): ReachCase[] {
  const out: ReachCase[] = [];
  const add = (routes: Route[], position: string, f: Forbidden, sql: string) => {
    for (const route of routes) out.push({ route, position, forbidden: f.name, sql, json: f.json, ch: f.ch, ...(f.chStatus ? { chStatus: f.chStatus } : {}) });
  };
  for (const f of FORBIDDEN) {
    for (const [position, t] of Object.entries(DISTRIBUTED_POSITIONS)) add([...JSON_ROUTES, ...CH_ROUTES], position, f, t.replaceAll('{S}', f.scalar));
    if (f.table) {
      for (const [position, t] of Object.entries(TABLE_POSITIONS)) {
        // FROM a catalog table on the ClickHouse interface is the catalog engine's to answer.
        const routes = position === 'FROM' && f.catalogAllows ? JSON_ROUTES : [...JSON_ROUTES, ...CH_ROUTES];
        add(routes, position, f, t.replaceAll('{T}', f.table));
      }
    }
    if (!f.catalogAllows)
      for (const [position, t] of Object.entries(CATALOG_POSITIONS)) add(CH_ROUTES, `catalog: ${position}`, f, t.replaceAll('{S}', f.scalar));
  }
  return out;
}

export interface Answer {
  status: number;
  /** The JSON API's error code, or ClickHouse's exception code on its interface. */
  code: string | undefined;
  position: boolean;
  text: string;
}

/** One case through its route. */
export async function send(url: string, c: ReachCase): Promise<Answer> {
  if (c.route.startsWith('json')) {
    const path = c.route === 'json /explain' ? '/explain' : '/query';
    const mode = c.route.endsWith('general') ? 'general' : c.route.endsWith('fast') ? 'fast' : undefined;
    const r = await fetch(`${url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ sql: c.sql, ...(mode ? { settings: { ch_scatter_path: mode } } : {}) }),
    });
    const text = await r.text();
    let body: { error?: { code?: string; position?: unknown } } = {};
    try {
      body = JSON.parse(text);
    } catch {
      /* judged below: not JSON */
    }
    return { status: r.status, code: body.error?.code, position: body.error?.position !== undefined, text };
  }
  const r =
    c.route === 'clickhouse GET' ? await fetch(`${url}/?${new URLSearchParams({ query: c.sql })}`) : await fetch(`${url}/`, { method: 'POST', body: c.sql });
  const text = await r.text();
  return { status: r.status, code: r.headers.get('x-clickhouse-exception-code') ?? undefined, position: /line \d+, column \d+/.test(text), text };
}

/** What is wrong with an answer to a case (nothing: refused as it must be). */
export function judge(c: ReachCase, a: Answer, shardCalls: number): string[] {
  const problems: string[] = [];
  if (c.chStatus !== undefined && !c.route.startsWith('json')) {
    if (a.status !== c.chStatus) problems.push(`status ${a.status}, want ${c.chStatus}`);
  } else if (a.status < 400 || a.status >= 500) problems.push(`status ${a.status}`);
  if (c.route.startsWith('json')) {
    // The fast path may refuse the query's shape first; what it may never do is run it.
    const ok = c.route === 'json /query fast' ? [c.json, 'UNSUPPORTED'] : [c.json];
    if (!ok.includes(a.code ?? '')) problems.push(`code ${a.code}, want ${ok.join('/')}`);
    if (!a.position) problems.push('no position');
  } else {
    if (a.code !== String(c.ch)) problems.push(`code ${a.code}, want ${c.ch}`);
    if (!a.position) problems.push('no position');
  }
  if (a.text.includes(SECRET_MARK)) problems.push('the secret came back');
  if (/\bat \S+\.(ts|js):\d+/.test(a.text)) problems.push('a stack trace');
  if (shardCalls > 0) problems.push(`${shardCalls} shard request(s) were sent`);
  return problems;
}
