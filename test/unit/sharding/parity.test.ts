// The parity check's comparisons without a server: engine_full parsing, expression
// normalization, the xxHash64 path (18.16 cannot create such a Distributed table) and the
// shard-order warning. The same checks run against real 18.16 in test/server/parity.test.ts.
import { describe, expect, it } from 'vitest';
import { parseTopology } from '../../../shared/core/config/load.js';
import type { ClickHouseAccess, QueryResult } from '../../../shared/core/clickhouse/port.js';
import { ScatterError } from '../../../shared/core/errors.js';
import { assertParityAtStartup, checkParity, distributedArgs, normalizeExpr, unquoteName } from '../../../shared/core/sharding/index.js';

describe('engine_full parsing and normalization', () => {
  it('splits top-level arguments, keeping nested calls and quoted commas whole', () => {
    expect(distributedArgs("Distributed('sensors', 'analytics', 'sensor_events', xxHash64(`sensor`), 'pol,icy')")).toEqual([
      "'sensors'",
      "'analytics'",
      "'sensor_events'",
      'xxHash64(`sensor`)',
      "'pol,icy'",
    ]);
    expect(distributedArgs('Distributed(c, db, t)')).toEqual(['c', 'db', 't']);
    expect(distributedArgs('Distributed(c, db, t, intHash64(plus(a, b)))')).toEqual(['c', 'db', 't', 'intHash64(plus(a, b))']);
    expect(distributedArgs('MergeTree() ORDER BY x')).toBeUndefined();
  });
  it('normalizes whitespace and identifier quotes, not string literals', () => {
    expect(normalizeExpr(' xxHash64( `sensor` ) ')).toBe('xxHash64(sensor)');
    expect(normalizeExpr('xxHash64("sensor")')).toBe('xxHash64(sensor)');
    expect(normalizeExpr("concat(a, ' b ')")).toBe("concat(a,' b ')");
    expect(normalizeExpr('xxHash64(sensor2)')).not.toBe(normalizeExpr('xxHash64(sensor)'));
    expect(unquoteName("'analytics'")).toBe('analytics');
    expect(unquoteName('`my db`')).toBe('my db');
  });
  it('reads quotes, escapes and comments as ClickHouse does (the SQL lexer)', () => {
    expect(unquoteName("'it\\'s'")).toBe("it's");
    expect(unquoteName("'\\x41\\n'")).toBe('A\n');
    expect(unquoteName('“sensors”')).toBe('sensors');
    expect(normalizeExpr('xxHash64(/* key */ sensor) -- c')).toBe('xxHash64(sensor)');
    expect(normalizeExpr('xxHash64(“sensor”)')).toBe('xxHash64(sensor)');
    expect(normalizeExpr("concat(a, 'b''c')")).toBe(normalizeExpr("concat(a, 'b\\'c')"));
    expect(distributedArgs("Distributed('c', 'db', 't', cityHash64(concat(a, ')')), 'p')")).toEqual([
      "'c'",
      "'db'",
      "'t'",
      "cityHash64(concat(a, ')'))",
      "'p'",
    ]);
    expect(distributedArgs('Distributed(c, db, t, arrayElement([1, 2], 1))')).toEqual(['c', 'db', 't', 'arrayElement([1, 2], 1)']);
    expect(distributedArgs('Distributed(c, db, $$)')).toBeUndefined();
    expect(normalizeExpr('f($$)')).not.toBe(normalizeExpr('f(x)'));
  });
});

/** Fake access answering the three catalog queries the check makes. */
function fake(state: { clusters: { shard_num: number; shard_weight: number; host_name: string }[]; engineFull?: string; keyType?: string }): ClickHouseAccess {
  const result = (rows: Record<string, unknown>[]): QueryResult => ({ meta: [], rows, statistics: { elapsedMs: 0, rowsRead: 0, bytesRead: 0 } });
  const no = async () => {
    throw new Error('unused');
  };
  return {
    describe: 'fake',
    async query(sql) {
      if (sql.includes('FROM system.clusters WHERE'))
        return result(state.clusters.map((c) => ({ ...c, replica_num: 1, host_address: '10.0.0.' + c.shard_num, port: 9000 })));
      if (sql.includes('FROM system.tables')) return result(state.engineFull ? [{ engine: 'Distributed', engine_full: state.engineFull }] : []);
      if (sql.includes('FROM system.columns')) return result(state.keyType ? [{ type: state.keyType }] : []);
      throw new Error(`unexpected ${sql}`);
    },
    queryRaw: no,
    exec: no,
    insert: no,
    cancel: no,
    ping: async () => true,
    close: async () => undefined,
  };
}

const topo = (over: Record<string, unknown> = {}) =>
  parseTopology({
    cluster: 'sensors',
    shards: [
      { weight: 1, replicas: [{ url: 'http://ch-0:8123' }] },
      { weight: 1, replicas: [{ url: 'http://ch-1:8123' }] },
    ],
    tables: { 'analytics.sensor_events_dist': { local: 'analytics.sensor_events', shardingKey: { column: 'sensor', type: 'String', function: 'xxHash64' } } },
    distributedCheck: { table: 'analytics.sensor_events_dist' },
    ...over,
  });
const cluster = [
  { shard_num: 1, shard_weight: 1, host_name: 'ch-0' },
  { shard_num: 2, shard_weight: 1, host_name: 'ch-1' },
];

describe('checkParity (xxHash64 DDL, as newer servers print it)', () => {
  it('passes when everything lines up', async () => {
    const r = await checkParity(
      topo(),
      fake({ clusters: cluster, engineFull: "Distributed('sensors', 'analytics', 'sensor_events', xxHash64(`sensor`))", keyType: 'String' }),
    );
    expect(r).toEqual({ ok: true, problems: [], warnings: [] });
  });
  it('reports every difference at once', async () => {
    const r = await checkParity(
      topo(),
      fake({
        clusters: [cluster[0]!, { ...cluster[1]!, shard_weight: 3 }, { shard_num: 3, shard_weight: 1, host_name: 'ch-2' }],
        engineFull: 'Distributed(other, analytics, sensor_events_v2, cityHash64(sensor))',
        keyType: 'LowCardinality(String)',
      }),
    );
    expect(r.ok).toBe(false);
    expect(r.problems.join('\n')).toMatch(/shard count: config has 2 shards, cluster "sensors" has 3/);
    expect(r.problems.join('\n')).toMatch(/weight of shards\[1\] \(shard_num 2\): config 1, cluster 3/);
    expect(r.problems.join('\n')).toMatch(/reads cluster "other"/);
    expect(r.problems.join('\n')).toMatch(/points at analytics.sensor_events_v2/);
    expect(r.problems.join('\n')).toMatch(/DDL has cityHash64\(sensor\), config places rows by xxHash64\(sensor\)/);
    expect(r.problems.join('\n')).toMatch(/table has LowCardinality\(String\), config says String/);
    expect(r.problems.length).toBe(6);
  });
  it('warns, never fails, when a replica host sits under another shard_num', async () => {
    const swapped = [
      { ...cluster[0]!, host_name: 'ch-1' },
      { ...cluster[1]!, host_name: 'ch-0' },
    ];
    const r = await checkParity(
      topo(),
      fake({ clusters: swapped, engineFull: 'Distributed(sensors, analytics, sensor_events, xxHash64(sensor))', keyType: 'String' }),
    );
    expect(r.ok).toBe(true);
    expect(r.warnings).toHaveLength(2);
    expect(r.warnings[0]).toMatch(/shards\[0\].replicas\[0\] host ch-0 appears .* under shard_num 2, not 1/);
  });
  it('shardingExpr escape hatch is compared textually', async () => {
    const t = topo({ distributedCheck: { table: 'analytics.sensor_events_dist', shardingExpr: 'xxHash64(lower(sensor))' } });
    const ok = await checkParity(t, fake({ clusters: cluster, engineFull: 'Distributed(sensors, analytics, sensor_events, xxHash64( lower(`sensor`) ))' }));
    expect(ok.problems).toEqual([]);
    const bad = await checkParity(t, fake({ clusters: cluster, engineFull: 'Distributed(sensors, analytics, sensor_events, xxHash64(sensor))' }));
    expect(bad.problems).toEqual([expect.stringMatching(/distributedCheck.shardingExpr is xxHash64\(lower\(sensor\)\)/)]);
  });
  it('assertParityAtStartup throws with all problems and passes warnings on', async () => {
    const warned: string[] = [];
    const err = await assertParityAtStartup(
      topo(),
      fake({ clusters: [cluster[0]!], engineFull: 'Distributed(sensors, analytics, sensor_events)', keyType: 'String' }),
      (m) => warned.push(m),
    ).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ScatterError);
    expect((err as ScatterError).code).toBe('CONFIG_INVALID');
    expect((err as Error).message).toMatch(/shard count/);
    expect((err as Error).message).toMatch(/has no sharding expression/);
    expect(warned).toEqual([]);
  });
});
