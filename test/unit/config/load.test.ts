import { describe, expect, it } from 'vitest';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, loadTopology, localOnlyProblems, parseTopology, qualifyTable } from '../../../shared/core/config/load.js';

const valid = {
  cluster: 'sensors',
  shards: [
    { weight: 1, replicas: [{ url: 'http://ch-0:8123' }, { url: 'http://ch-0b:8123' }] },
    { weight: 2, replicas: [{ embedded: '.data/shard-1' }] },
  ],
  tables: {
    'analytics.sensor_events_dist': {
      local: 'analytics.sensor_events',
      shardingKey: { column: 'sensor', type: 'String', function: 'xxHash64' },
    },
  },
};

function problemsOf(value: unknown): string[] {
  try {
    parseTopology(value);
  } catch (e) {
    if (e instanceof ConfigError) return e.problems;
    throw e;
  }
  return [];
}

describe('topology config', () => {
  it('accepts the documented example and fills defaults', () => {
    const t = parseTopology(valid);
    expect(t.shards[1]!.weight).toBe(2);
    expect(t.shards[0]!.internalReplication).toBe(false);
    expect(t.query.timeoutMs).toBe(5000);
    expect(t.query.hedge).toEqual({ enabled: true, afterQuantile: 0.95, maxExtraPercent: 5 });
    expect(t.query.transferOverflowMode).toBe('throw');
    expect(t.schedules).toEqual([]);
  });

  it('qualifies table names without a database as default.<name>', () => {
    expect(qualifyTable('events')).toBe('default.events');
    expect(qualifyTable('db.events')).toBe('db.events');
    const t = parseTopology({ ...valid, tables: { events_dist: { local: 'events', shardingKey: { column: 'id', type: 'UInt64', function: 'identity' } } } });
    expect(Object.keys(t.tables)).toEqual(['default.events_dist']);
    expect(t.tables['default.events_dist']!.local).toBe('default.events');
  });

  it('reports one line per problem, each naming its JSON path', () => {
    const bad = {
      cluster: '',
      shards: [
        { weight: 0, replicas: [] },
        { weight: 1, replicas: [{ url: 'http://a:8123', embedded: 'x' }] },
      ],
      tables: { t: { local: 'l', shardingKey: { column: 'k', type: 'Nullable(String)' } } },
      query: { timeoutMs: -1, transferOverflowMode: 'maybe' },
    };
    const p = problemsOf(bad);
    expect(p).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^\$\.cluster: /),
        expect.stringMatching(/^\$\.shards\[0\]\.weight: /),
        expect.stringMatching(/^\$\.shards\[0\]\.replicas: /),
        expect.stringMatching(/^\$\.shards\[1\]\.replicas\[0\]: a replica needs exactly one/),
        expect.stringMatching(/^\$\.tables\.t\.shardingKey\.type: Nullable sharding keys are refused/),
        expect.stringMatching(/^\$\.query\.timeoutMs: /),
        expect.stringMatching(/^\$\.query\.transferOverflowMode: /),
      ]),
    );
    expect(p.length).toBeGreaterThanOrEqual(7);
  });

  it('reports every problem in one pass: a Nullable key next to problems in the same key, the same replica and other sections', () => {
    const bad = {
      shards: [{ replicas: [{ url: 'not a url', embedded: 'x', extra: 1 }] }],
      tables: {
        'db.events_dist': { local: 'db.events', shardingKey: { type: 'Nullable(UInt64)', function: 'cityHash64' } },
        'db.rollup_dist': { local: 'db.rollup', shardingKey: { column: 'k', type: 'Nullable(String)', function: 'identity' } },
        rollup_dist: { local: 'rollup', shardingKey: { column: 'k', type: 'UInt64' } },
        'default.rollup_dist': { local: 'rollup', shardingKey: { column: 'k', type: 'UInt64' } },
      },
      schedules: [
        { name: 'hourly', schedule: 'rate(1 hour)', sql: 'SELECT 1', destination: { table: 'db.nowhere' } },
        { name: 'hourly', schedule: 'every hour', sql: 'SELECT 1', destination: { table: 'db.rollup_dist' } },
      ],
    };
    // Every line, exactly (in any order: zod decides the order of the lines within one pass).
    expect(problemsOf(bad).sort()).toEqual(
      [
        '$.shards[0].replicas[0]: Unrecognized key: "extra"',
        '$.shards[0].replicas[0].url: Invalid URL',
        '$.shards[0].replicas[0]: a replica needs exactly one of "url" or "embedded"',
        '$.tables["db.events_dist"].shardingKey.column: Invalid input: expected string, received undefined',
        '$.tables["db.events_dist"].shardingKey.type: Nullable sharding keys are refused: ClickHouse hashes a Nullable value differently (Nullable(UInt64))',
        '$.tables["db.events_dist"].shardingKey.function: Invalid option: expected one of "xxHash64"|"identity"',
        '$.tables["db.rollup_dist"].shardingKey.type: Nullable sharding keys are refused: ClickHouse hashes a Nullable value differently (Nullable(String))',
        '$.tables["db.rollup_dist"].shardingKey.function: "identity" needs an integer column, not Nullable(String)',
        '$.schedules[1].schedule: an EventBridge expression: rate(1 hour), rate(5 minutes) (singular unit for 1, plural above) or cron(<6 fields>)',
        '$.cluster: Invalid input: expected string, received undefined',
        '$.tables["default.rollup_dist"]: duplicates table default.rollup_dist',
        '$.schedules[0].destination.table: db.nowhere is not in "tables" (rows are routed by its sharding key)',
        '$.schedules[1].name: duplicate schedule name hourly',
      ].sort(),
    );
  });

  it('a schedule destination may be named without its database, like the table it names', () => {
    const t = parseTopology({
      ...valid,
      tables: { ...valid.tables, rollup_dist: { local: 'rollup', shardingKey: { column: 'k', type: 'UInt64' } } },
      schedules: [{ name: 'h', schedule: 'rate(1 hour)', sql: 'SELECT 1', destination: { table: 'rollup_dist' } }],
    });
    expect(t.schedules[0]!.destination.table).toBe('default.rollup_dist');
    expect(Object.keys(t.tables)).toContain('default.rollup_dist');
  });

  it('takes the schedule expressions and secret ids EventBridge and Secrets Manager take, and refuses the rest', () => {
    const withSchedule = (schedule: string) => ({
      ...valid,
      schedules: [{ name: 'h', schedule, sql: 'SELECT 1', destination: { table: 'analytics.sensor_events_dist' } }],
    });
    for (const ok of ['rate(1 minute)', 'rate(1 day)', 'rate(5 minutes)', 'rate(12 hours)', 'cron(0 3 * * ? *)', 'cron(0/15 * ? * MON-FRI *)'])
      expect(problemsOf(withSchedule(ok)), ok).toEqual([]);
    for (const bad of ['rate(1 hours)', 'rate(5 hour)', 'rate(0 minutes)', 'rate(5 weeks)', 'cron(0 3 * * ?)', 'cron(nonsense)', 'every hour'])
      expect(problemsOf(withSchedule(bad)), bad).toEqual([expect.stringMatching(/^\$\.schedules\[0\]\.schedule: an EventBridge expression/)]);
    const withSecret = (secret: string) => ({ ...valid, shards: [{ replicas: [{ url: 'http://a:8123', secret }] }] });
    for (const ok of ['ch-scatter/sensors/shard-0', 'a+b=c.d@e_f', 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:ch/shard-0-AbCdEf'])
      expect(problemsOf(withSecret(ok)), ok).toEqual([]);
    for (const bad of ['', 'has space', 'star*', 'arn:aws:secretsmanager', 'arn:', 'x'.repeat(513)])
      expect(problemsOf(withSecret(bad)), bad).toEqual([expect.stringMatching(/^\$\.shards\[0\]\.replicas\[0\]\.secret: a Secrets Manager secret name/)]);
  });

  it('refuses unsupported key types and identity on non-integers', () => {
    expect(problemsOf({ ...valid, tables: { t: { local: 'l', shardingKey: { column: 'k', type: 'Float64' } } } })).toEqual([
      expect.stringMatching(/^\$\.tables\.t\.shardingKey\.type: unsupported sharding key type Float64/),
    ]);
    expect(problemsOf({ ...valid, tables: { t: { local: 'l', shardingKey: { column: 'k', type: 'String', function: 'identity' } } } })).toEqual([
      expect.stringMatching(/^\$\.tables\.t\.shardingKey\.function: "identity" needs an integer column/),
    ]);
    expect(problemsOf({ ...valid, tables: { t: { local: 'l', shardingKey: { column: 'k', type: 'String', function: 'cityHash64' } } } })).toEqual([
      expect.stringMatching(/^\$\.tables\.t\.shardingKey\.function: /),
    ]);
  });

  it('refuses unknown keys (typos do not pass silently)', () => {
    expect(problemsOf({ ...valid, shard: [] })).toEqual([expect.stringMatching(/^\$: .*shard/)]);
  });

  it('reads files, resolves embedded dirs against the config file, and reports JSON syntax errors', () => {
    const dir = mkdtempSync(join(tmpdir(), 'cfg-'));
    writeFileSync(join(dir, 'ok.json'), JSON.stringify(valid));
    const t = loadTopology(join(dir, 'ok.json'));
    expect(t.shards[1]!.replicas[0]!.embedded).toBe(join(dir, '.data/shard-1'));
    writeFileSync(join(dir, 'bad.json'), '{ "cluster": ');
    expect(() => loadTopology(join(dir, 'bad.json'))).toThrow(/not valid JSON/);
    expect(() => loadTopology(join(dir, 'missing.json'))).toThrow(/cannot read/);
  });

  it('lists local-only options a deployed stack must refuse', () => {
    const t = parseTopology({ ...valid, shards: [{ replicas: [{ url: 'http://a:8123', fault: { delayMs: 10 } }] }, ...valid.shards.slice(1)] });
    expect(localOnlyProblems(t)).toEqual([
      '$.shards[0].replicas[0].fault: fault injection is for the local stack only',
      '$.shards[1].replicas[0].embedded: embedded replicas are for the local stack only; use "url"',
    ]);
  });
});
