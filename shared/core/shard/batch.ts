// A batch of queries for one replica (the leaves of one plan that go to this shard): each item runs
// as the query request it completes, all at once (the engine runs them in parallel, as it would the
// separate invocations a batch replaces), and is answered on its own, so one item's failure fails
// that item only. The response limit is shared: each item may use its part of it.
import type { QueryStatistics } from '../clickhouse/port.js';
import type { ShardPayload } from '../protocol/shard-request-schema.js';
import type { ShardRequest, ShardResponse, ShardSuccess } from '../protocol/shard-wire.js';

type BatchPayload = Extract<ShardPayload, { type: 'batch' }>;

/** The item's attempt id: its batch's with the item's index after it, so a cancel of the batch (a prefix KILL) stops every item. */
function itemAttemptId(batch: string | undefined, i: number): string | undefined {
  const id = batch === undefined ? undefined : `${batch}${i.toString(16).padStart(2, '0')}`;
  return id !== undefined && id.length <= 32 ? id : undefined;
}

export function batchItems(p: BatchPayload): ShardRequest[] {
  return p.requests.map((item, i) => {
    const attemptId = itemAttemptId(p.attemptId, i);
    return {
      ...item,
      type: 'query',
      queryId: p.queryId,
      shard: p.shard,
      replica: p.replica,
      deadline: p.deadline,
      attempt: p.attempt,
      ...(attemptId !== undefined ? { attemptId } : {}),
    };
  });
}

export async function runBatch(
  p: BatchPayload,
  maxResponseBytes: number,
  run: (item: ShardRequest, maxResponseBytes: number) => Promise<ShardResponse>,
  started: number,
  now: () => number,
): Promise<ShardSuccess> {
  const items = batchItems(p);
  const share = Math.floor(maxResponseBytes / items.length);
  const batch = await Promise.all(items.map((item) => run(item, share)));
  const statistics: QueryStatistics = { elapsedMs: now() - started, rowsRead: 0, bytesRead: 0 };
  for (const r of batch) {
    statistics.rowsRead += r.statistics?.rowsRead ?? 0;
    statistics.bytesRead += r.statistics?.bytesRead ?? 0;
  }
  return { ok: true, shard: p.shard, replica: p.replica, meta: [], rows: [], statistics, batch };
}
