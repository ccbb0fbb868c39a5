// Payload and coordinator memory for a high-cardinality GROUP BY
// (docs/benchmarks.md#4-payload-and-coordinator-memory-payload): 100k groups on each of 64 shards
// (every group on every shard: the worst case, the grouping column is not the sharding key). Each query
// runs in a fresh child process with --expose-gc (_payload-child.ts): the real planner makes the shard
// SQL and the merger; synthetic shard partials (the JSON a shard function would return) are parsed and
// merged one by one, as gather does. References in the same run: the same partials HELD instead of
// merged on arrival (heap per shard response), and the same GROUP BY with ORDER BY c DESC LIMIT 10
// (top-k push-down). The limits that keep a coordinator inside Lambda are derived from these figures
// (see `limits`).
import { startChild } from './_fork.js';
import { r2, table } from './_stats.js';

const LAMBDA_RESPONSE_BYTES = 6 * 1024 * 1024; // synchronous Invoke response limit
const SHARD_MAX_RESPONSE_BYTES = 6 * 1024 * 1024 - 64 * 1024; // shard-exec's DEFAULT_MAX_RESPONSE_BYTES

const QUERIES: Record<string, string> = {
  group_by_all: 'SELECT user, count() AS c, sum(amount) AS s, avg(amount) AS a FROM db.events_dist GROUP BY user',
  group_by_topk: 'SELECT user, count() AS c, sum(amount) AS s FROM db.events_dist GROUP BY user ORDER BY c DESC LIMIT 10',
};

export async function run(opts: { quick: boolean }): Promise<{ table: string; json: Record<string, unknown> }> {
  const shards = 64;
  const groups = opts.quick ? 5_000 : 100_000;
  const json: Record<string, unknown> = { shards, groups_per_shard: groups };
  const rows: (string | number)[][] = [];
  const run1 = async (name: string, sql: string, maxRowsToTransfer: number) => {
    const c = await startChild<Record<string, unknown>>('_payload-child', { shards, groups, sql, maxRowsToTransfer, holdShards: 4 }, 300_000, [
      '--expose-gc',
      '--max-old-space-size=4096',
    ]);
    await c.stop();
    // A merge that stops for any reason but the transfer cap is a broken bench, not a figure.
    const stop = c.info.stop_message as string | undefined;
    if (stop !== undefined && !(maxRowsToTransfer > 0 && /maxRowsToTransfer|max_rows_to_transfer/.test(stop))) {
      throw new Error(`payload ${name}: the merge failed at shard ${String(c.info.stopped_at_shard)}: ${stop}`);
    }
    return c.info;
  };
  for (const [name, sql] of Object.entries(QUERIES)) {
    const r = await run1(name, sql, 0); // 0 = no transfer cap: measure the whole merge
    const num = (k: string) => Number(r[k]);
    const heapAt = r.merger_heap_mb_after_shards as Record<string, number>;
    const e: Record<string, unknown> = {
      ...r,
      held_parsed_response_mb_per_shard: r2(num('held_parsed_response_mb_per_shard')),
      hold_all_estimate_mb: r2(num('held_parsed_response_mb_per_shard') * shards),
      merger_heap_mb_after_shards: Object.fromEntries(Object.entries(heapAt).map(([k, v]) => [k, r2(v)])),
      merger_peak_heap_mb: r2(num('merger_peak_heap_mb')),
      heap_after_finalize_mb: r2(num('heap_after_finalize_mb')),
      parse_ms_per_shard: r2(num('parse_ms_per_shard')),
      merge_ms_per_shard: r2(num('merge_ms_per_shard')),
      finalize_ms: r2(num('finalize_ms')),
      rss_mb: r2(num('rss_mb')),
      fits_lambda_response: num('bytes_per_shard_response') <= SHARD_MAX_RESPONSE_BYTES,
    };
    json[name] = e;
    rows.push([
      name,
      num('groups_per_shard_response'),
      (num('bytes_per_shard_response') / 1048576).toFixed(2),
      num('bytes_per_group'),
      (num('gzip_bytes_per_shard_response') / 1048576).toFixed(2),
      e.fits_lambda_response ? 'yes' : 'NO',
      (e.merger_heap_mb_after_shards as Record<string, number>)[String(shards)] ?? '-',
      e.merger_peak_heap_mb as number,
      e.hold_all_estimate_mb as number,
      e.parse_ms_per_shard as number,
      e.merge_ms_per_shard as number,
      e.finalize_ms as number,
    ]);
  }
  // The default transfer cap (query.maxRowsToTransfer = 1,000,000 received group rows) stops the
  // unbounded GROUP BY before the coordinator's heap grows past what the cap allows.
  const capped = await run1('group_by_all_default_cap', QUERIES.group_by_all!, 1_000_000);
  json.default_cap = {
    maxRowsToTransfer: 1_000_000,
    stopped_at_shard: capped.stopped_at_shard,
    message: capped.stop_message,
    peak_heap_mb: r2(Number(capped.merger_peak_heap_mb)),
  };

  const all = json.group_by_all as Record<string, unknown>;
  const bytesPerGroup = Number(all.bytes_per_group);
  const heapAt = all.merger_heap_mb_after_shards as Record<string, number>;
  const retained = heapAt[String(shards)] ?? Number(all.heap_after_finalize_mb);
  const heapPerGroupBytes = (retained * 1048576) / groups;
  const perGroupPerShard = ((retained - (heapAt['8'] ?? 0)) * 1048576) / (groups * (shards - 8));
  json.limits = {
    lambda_sync_response_bytes: LAMBDA_RESPONSE_BYTES,
    max_groups_per_shard_response_json: Math.floor(SHARD_MAX_RESPONSE_BYTES / bytesPerGroup),
    merger_heap_bytes_per_group_at_64_shards: Math.round(heapPerGroupBytes),
    merger_heap_bytes_per_group_per_extra_shard: Math.round(perGroupPerShard),
    merge_rows_per_second: Math.round(1000 / (Number(all.merge_ms_per_shard) / groups)),
    // A 1,769 MB coordinator (one full vCPU) with ~1 GB of V8 heap left for the merger:
    max_distinct_groups_at_64_shards_in_1gb_heap: Math.floor((1024 * 1048576) / heapPerGroupBytes),
    rule: 'each shard answer must stay under 6 MB (shard-exec refuses larger with a typed error); maxRowsToTransfer caps received group rows (default 1M); merged rows are dropped after merge; the merger state grows per distinct group (float sums are exact O(1) accumulators), see merger_heap_bytes_per_group_per_extra_shard (0 when it does not grow with shards)',
  };
  json.method = `64 synthetic shard partials of ${groups} groups, JSON text -> JSON.parse -> real merger (planQuery(...).createMerger()), heap after gc (--expose-gc) in a fresh process per query`;
  return {
    table:
      table(
        [
          'query',
          'groups/shard resp',
          'MB/shard resp',
          'B/group',
          'gzip MB',
          'fits 6 MB',
          'merger heap MB after 64 (gc)',
          'peak heapUsed MB (no gc)',
          'hold-all heap MB (est.)',
          'parse ms/shard',
          'merge ms/shard',
          'finalize ms',
        ],
        rows,
      ) + `\ndefault maxRowsToTransfer 1M: ${json.default_cap ? JSON.stringify(json.default_cap) : ''}\nlimits: ${JSON.stringify(json.limits)}`,
    json,
  };
}
