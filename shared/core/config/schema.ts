// The topology config (docs/api.md#1-the-topology-config), as a zod schema. One file drives the CLI, the
// local stack and the CDK app, so everything about it is checked here, once, with JSON paths
// in the messages.
import { z } from 'zod';

export const faultSchema = z
  .object({
    delayMs: z.number().int().nonnegative().optional(),
    delayProbability: z.number().min(0).max(1).optional(),
    error: z.string().optional(),
    errorProbability: z.number().min(0).max(1).optional(),
    crash: z.boolean().optional(),
    /** A streamed answer dies after this many bytes (the function failed mid-stream). */
    cutStreamAfterBytes: z.number().int().nonnegative().optional(),
  })
  .strict();

/**
 * Object-level checks (one field against another) run by default only when every field parsed,
 * so a problem such as a Nullable key would show up only after the others were fixed. These run
 * whenever the value is an object, on the fields as given, so one pass reports every problem.
 */
const onAnyObject = { when: (p: { value: unknown }) => typeof p.value === 'object' && p.value !== null && !Array.isArray(p.value) };

/** What Secrets Manager accepts as a secret id: a name (up to 512 of these characters) or a secret's ARN. */
const SECRET_NAME_OR_ARN = /^(?:[A-Za-z0-9/_+=.@-]{1,512}|arn:aws[a-z-]*:secretsmanager:[a-z0-9-]+:\d{12}:secret:[A-Za-z0-9/_+=.@-]{1,512})$/;
const SECRET_HINT =
  'a Secrets Manager secret name (letters, digits and /_+=.@-, at most 512) or a secret ARN (arn:aws:secretsmanager:<region>:<account>:secret:<name>)';

export const replicaSchema = z
  .object({
    url: z.string().url().optional(),
    embedded: z.string().min(1).optional(),
    /** Secrets Manager secret (name or ARN) holding {"username","password"} for this replica. */
    secret: z.string().regex(SECRET_NAME_OR_ARN, SECRET_HINT).optional(),
    /** Local stack only: injected faults. The CDK app refuses configs that carry it. */
    fault: faultSchema.optional(),
  })
  .strict()
  .check(
    z.superRefine((r: { url?: unknown; embedded?: unknown }, ctx) => {
      const n = (r.url ? 1 : 0) + (r.embedded ? 1 : 0);
      if (n !== 1) ctx.addIssue({ code: 'custom', message: 'a replica needs exactly one of "url" or "embedded"' });
    }, onAnyObject),
  );

export const shardSchema = z
  .object({
    weight: z.number().int().positive().default(1),
    internalReplication: z.boolean().default(false),
    replicas: z.array(replicaSchema).min(1),
  })
  .strict();

/** Types a sharding key may have (docs/api.md#4-placement). Nullable and others are refused. */
export const KEY_TYPES = ['String', 'UInt8', 'UInt16', 'UInt32', 'UInt64', 'Int8', 'Int16', 'Int32', 'Int64', 'Date', 'DateTime', 'UUID'] as const;
export const FIXED_STRING = /^FixedString\((\d+)\)$/;

/** A sharding key's declared type: checked on its own, so it is reported next to every other problem. */
export const keyTypeSchema = z
  .string()
  .min(1)
  .superRefine((type, ctx) => {
    if (/^Nullable\(/.test(type)) {
      ctx.addIssue({ code: 'custom', message: `Nullable sharding keys are refused: ClickHouse hashes a Nullable value differently (${type})` });
      return;
    }
    const ok = (KEY_TYPES as readonly string[]).includes(type) || FIXED_STRING.test(type) || /^DateTime\('[^']*'\)$/.test(type);
    if (!ok) ctx.addIssue({ code: 'custom', message: `unsupported sharding key type ${type}; supported: ${KEY_TYPES.join(', ')}, FixedString(N)` });
  });

export const shardingKeySchema = z
  .object({
    column: z.string().min(1),
    type: keyTypeSchema,
    function: z.enum(['xxHash64', 'identity']).default('xxHash64'),
  })
  .strict()
  .check(
    z.superRefine((k: { type?: unknown; function?: unknown }, ctx) => {
      if (k.function === 'identity' && typeof k.type === 'string' && !/^U?Int(8|16|32|64)$/.test(k.type)) {
        ctx.addIssue({ code: 'custom', path: ['function'], message: `"identity" needs an integer column, not ${k.type}` });
      }
    }, onAnyObject),
  );

export const tableSchema = z
  .object({
    local: z.string().min(1),
    shardingKey: shardingKeySchema,
    /** Accept `INSERT INTO <this table> FORMAT ...` through the ClickHouse HTTP interface (routed by the router). */
    insert: z.boolean().default(false),
    /**
     * Columns whose per-shard min/max the coordinator reads (with each shard's row count), to skip
     * shards a range predicate on them cannot match and to say how much of the rows a partial answer
     * covers. `[]`: row counts only. Absent: no statistics for this table.
     */
    statistics: z.array(z.string().min(1)).optional(),
  })
  .strict();

export const querySchema = z
  .object({
    timeoutMs: z.number().int().positive().max(900_000).default(5000),
    requireComplete: z.boolean().default(false),
    /** Answer only when the shards that answered hold at least this share of each table's rows (statistics needed). */
    requireCoverage: z.number().min(0).max(1).optional(),
    /** How long a coordinator keeps a table's statistics before reading them again (router inserts refresh them at once). */
    statisticsTtlMs: z.number().int().positive().default(60_000),
    hedge: z
      .object({
        enabled: z.boolean().default(true),
        afterQuantile: z.number().gt(0).lt(1).default(0.95),
        maxExtraPercent: z.number().min(0).max(100).default(5),
      })
      .strict()
      .default({ enabled: true, afterQuantile: 0.95, maxExtraPercent: 5 }),
    maxConcurrency: z.number().int().positive().default(64),
    /**
     * Queries one coordinator process runs at once (0 = no cap); more are refused at arrival with 429
     * (TOO_MANY_QUERIES, ClickHouse's 202) rather than answered after their deadline. A Lambda container
     * runs one at a time: there reserved concurrency and API Gateway's throttling play this part.
     */
    maxInFlightQueries: z.number().int().nonnegative().default(0),
    maxRowsToTransfer: z.number().int().nonnegative().default(1_000_000),
    maxBytesToTransfer: z.number().int().nonnegative().default(0),
    /**
     * The general path's stage-one rows the final stage's function may hold (bytes, inline and from the
     * exchange together, 0 = unlimited): 64 MiB fits a 256 MB shard function beside its engine client.
     * Over it the query is 413 TRANSFER_LIMIT as the shards answer, before the final stage runs.
     */
    maxFinalStageBytes: z
      .number()
      .int()
      .nonnegative()
      .default(64 * 1024 * 1024),
    /**
     * A shard's stage-one answer over this many bytes goes through the exchange (object store) instead
     * of inline; absent, the shards' share of the final-stage request (at most 1 MiB each).
     */
    exchangeInlineBytes: z.number().int().nonnegative().optional(),
    transferOverflowMode: z.enum(['throw', 'break']).default('throw'),
    /** distributed_product_mode for a plain IN/JOIN against another distributed table. */
    distributedProductMode: z.enum(['deny', 'local', 'global']).default('deny'),
    /** Top-k over aggregated values asks each shard for n * factor + add groups (Elasticsearch's shard_size). */
    shardSizeFactor: z.number().positive().default(1.5),
    shardSizeAdd: z.number().int().nonnegative().default(10),
    /**
     * `ORDER BY count() DESC LIMIT n` over a GROUP BY without the sharding key: 'exact' (the measured
     * default exact method, shared/core/plan/tput/method.ts), 'tput' (TPUT's two rounds where eligible),
     * 'every_group' (every group from every shard) or 'shard_size' (the fast path's approximation
     * with its error bound). Per query: the setting ch_scatter_top_count.
     */
    topCount: z.enum(['exact', 'tput', 'every_group', 'shard_size']).default('exact'),
    /**
     * `ORDER BY ... LIMIT` row queries whose rows are estimated wider than this many bytes beyond their
     * sort keys run in two rounds (query-then-fetch; measured to pay off near 500). Per query: the setting
     * ch_scatter_query_then_fetch_row_bytes; ch_scatter_query_then_fetch = 1 or 0 forces either.
     */
    queryThenFetchRowBytes: z.number().int().nonnegative().default(500),
    /** Above this many shards the coordinator fans out through sub-coordinators (0 = never). */
    treeFanoutAbove: z.number().int().nonnegative().default(0),
    /**
     * Values allowed in one IN list (`x IN (...)`); more is 413 TOO_LARGE naming the list's position.
     * 20,000 values of up to 10 characters (any UInt32, short strings) keep a shard query under
     * ClickHouse's max_query_size; longer values meet maxShardQueryBytes first.
     */
    maxInListValues: z.number().int().positive().default(20_000),
    /**
     * Longest shard SQL sent (bytes). ClickHouse refuses a query text over its max_query_size (256 KiB
     * by default, chdb and 18.16 alike); the shard adds its SETTINGS and FORMAT (under 4 KiB). Over
     * this the query is 413 TOO_LARGE before any shard is asked. Raise it only with max_query_size
     * raised on every shard's user profile.
     */
    /**
     * The highest value a query may set for each resource limit it may only lower (max_memory_usage,
     * max_rows_to_read...: shared/core/plan/setting-values.ts LOWERABLE_LIMITS): your shard profile's values.
     * Unset names keep the built-in ceilings (ClickHouse's default profile: max_memory_usage 10 GB, max_recursive_cte_evaluation_depth 1000).
     */
    limitCeilings: z.record(z.string(), z.number().int().positive()).optional(),
    maxShardQueryBytes: z
      .number()
      .int()
      .positive()
      .default(256 * 1024 - 4 * 1024),
  })
  .strict();

/** EventBridge's own rule: rate(<n> <unit>) with a singular unit for 1 and a plural one above, or cron with six fields. */
const EVENTBRIDGE_SCHEDULE = /^(?:rate\((?:1 (?:minute|hour|day)|(?:[2-9]|[1-9]\d+) (?:minutes|hours|days))\)|cron\((?:\S+ ){5}\S+\))$/;

export const scheduleSchema = z
  .object({
    name: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'letters, digits, "_" and "-" only, at most 64'),
    schedule: z
      .string()
      .regex(EVENTBRIDGE_SCHEDULE, 'an EventBridge expression: rate(1 hour), rate(5 minutes) (singular unit for 1, plural above) or cron(<6 fields>)'),
    sql: z.string().min(1),
    destination: z.object({ table: z.string().min(1) }).strict(),
  })
  .strict();

/** ClickHouse's HTTP interface: who may read it from a browser, and the name it gives itself. */
export const clickhouseHttpSchema = z
  .object({
    /**
     * Origins whose pages may call the interface from a browser (CORS): exact origins
     * (`https://grafana.example.com`) or `*` for any. Empty (the default): no CORS headers, as
     * ClickHouse without add_http_cors_header.
     */
    corsOrigins: z.array(z.string().regex(/^(\*|https?:\/\/[^/\s]+)$/, 'an origin (scheme://host[:port]) or *')).default([]),
    /** X-ClickHouse-Server-Display-Name (ClickHouse's display_name; never a shard's host name). */
    displayName: z.string().min(1).max(128).default('ch-scatter'),
  })
  .strict();

export const topologySchema = z
  .object({
    cluster: z.string().min(1),
    shards: z.array(shardSchema).min(1),
    tables: z.record(z.string(), tableSchema).refine((t) => Object.keys(t).length > 0, 'at least one table'),
    distributedCheck: z
      .object({ table: z.string().min(1), endpoint: z.string().url().optional(), shardingExpr: z.string().optional() })
      .strict()
      .optional(),
    query: querySchema.default(querySchema.parse({})),
    schedules: z.array(scheduleSchema).default([]),
    clickhouseHttp: clickhouseHttpSchema.default(clickhouseHttpSchema.parse({})),
  })
  .strict()
  .check(z.superRefine(crossReferenceProblems, onAnyObject));

/** `db.table` for a name with or without a database (no database means `default`). */
export function qualifyTable(name: string): string {
  return name.includes('.') ? name : `default.${name}`;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Problems between sections, found on whatever parts of the config are well-formed (the sections
 * themselves report their own problems): two table names that mean the same table, two schedules
 * with one name, a schedule whose destination is not a configured table (its rows are routed by
 * that table's sharding key, so it could never be written).
 */
function crossReferenceProblems(topo: { tables?: unknown; schedules?: unknown }, ctx: z.RefinementCtx): void {
  const tables = new Set<string>();
  if (isObject(topo.tables)) {
    for (const name of Object.keys(topo.tables)) {
      const q = qualifyTable(name);
      if (tables.has(q)) ctx.addIssue({ code: 'custom', path: ['tables', name], message: `duplicates table ${q}` });
      tables.add(q);
    }
  }
  if (!Array.isArray(topo.schedules)) return;
  const names = new Set<string>();
  topo.schedules.forEach((s: unknown, i: number) => {
    if (!isObject(s)) return;
    if (typeof s.name === 'string') {
      if (names.has(s.name)) ctx.addIssue({ code: 'custom', path: ['schedules', i, 'name'], message: `duplicate schedule name ${s.name}` });
      names.add(s.name);
    }
    const table = isObject(s.destination) ? s.destination.table : undefined;
    if (typeof table === 'string' && table.length > 0 && isObject(topo.tables) && !tables.has(qualifyTable(table))) {
      ctx.addIssue({
        code: 'custom',
        path: ['schedules', i, 'destination', 'table'],
        message: `${table} is not in "tables" (rows are routed by its sharding key)`,
      });
    }
  });
}

export type TopologyInput = z.input<typeof topologySchema>;
export type Topology = z.output<typeof topologySchema>;
export type ShardConfig = Topology['shards'][number];
export type ReplicaConfig = ShardConfig['replicas'][number];
export type TableConfig = Topology['tables'][string];
export type ShardingKey = TableConfig['shardingKey'];
export type QueryDefaults = Topology['query'];
export type Schedule = Topology['schedules'][number];
export type Fault = z.output<typeof faultSchema>;
