// The coordinator's per-shard streams (shared/core/scatter/shard-streams.ts) over a scripted
// invoker: the hedge and the retry keep their meaning up to a shard's first byte (the loser's stream
// is aborted, the winner's bytes are the ones read), a failure before the first byte is a typed
// missing shard, an invoker without streaming answers buffered as one chunk, and the attempts that
// may still run are known (what a consumer that leaves cancels).
import { describe, expect, it } from 'vitest';
import type { ShardRequest } from '../../../shared/core/protocol/shard-wire.js';
import { createLimiter } from '../../../shared/core/scatter/fanout.js';
import { createHedgeState } from '../../../shared/core/scatter/hedge.js';
import type { ShardInvoker, ShardStreamAnswer } from '../../../shared/core/scatter/invoker.js';
import { openShardStreams, pipeShardStreams } from '../../../shared/core/scatter/shard-streams.js';

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    const t = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => {
      clearTimeout(t);
      reject(signal.reason);
    });
  });

async function* bytes(text: string, signal: AbortSignal): AsyncGenerator<Uint8Array> {
  for (const part of text.split('|')) {
    await sleep(5, signal);
    yield Buffer.from(part);
  }
}

const request = (shard: number) => (replica: number, attempt: ShardRequest['attempt']) =>
  ({
    type: 'query',
    queryId: 'q',
    shard,
    replica,
    sql: 'SELECT 1',
    deadline: Date.now() + 5_000,
    settings: {},
    external: [],
    attempt,
    format: 'TSV',
  }) as ShardRequest;

function run(invoker: ShardInvoker, hedge = { enabled: false, afterQuantile: 0.95, maxExtraPercent: 0 }, replicaCount = 1) {
  const streams = openShardStreams(
    { invoker, limiter: createLimiter(8), deadlineAt: Date.now() + 5_000, now: Date.now, hedge, state: createHedgeState({ coldStartDelayMs: 30 }) },
    [0, 1].map((shard) => ({ shard, how: { replicaCount, request: request(shard) } })),
  );
  const got = ['', ''];
  return pipeShardStreams(streams, 2, (shard, c) => {
    got[shard] += Buffer.from(c).toString();
  }).then((summary) => {
    streams.close();
    return { summary, got };
  });
}

describe('openShardStreams', () => {
  it("a hedge overtakes a replica slow to start: the winner's bytes are read, the loser's stream is aborted", async () => {
    const aborted: number[] = [];
    const invoker: ShardInvoker = {
      invoke: async () => {
        throw new Error('not buffered');
      },
      async invokeStream(shard, p, signal): Promise<ShardStreamAnswer> {
        signal.addEventListener('abort', () => aborted.push(p.replica));
        if (p.replica === 0) await sleep(400, signal); // replica 0 starts late
        return { ok: true, shard, replica: p.replica, chunks: bytes(`s${shard}r${p.replica}|-a|-b`, signal) };
      },
    };
    const { summary, got } = await run(invoker, { enabled: true, afterQuantile: 0.95, maxExtraPercent: 100 }, 2);
    expect(got).toEqual(['s0r1-a-b', 's1r1-a-b']);
    expect(summary).toMatchObject({ succeeded: 2, hedged: 2, missing: [] });
    expect(aborted.filter((r) => r === 0)).toHaveLength(2);
  });

  it("a failure before the first byte is a missing shard with the shard's reason; one after it too", async () => {
    const invoker: ShardInvoker = {
      invoke: async () => {
        throw new Error('not buffered');
      },
      async invokeStream(shard, p, signal): Promise<ShardStreamAnswer> {
        if (shard === 0) return { ok: false, shard, replica: p.replica, error: { kind: 'error', code: 'SHARD_ERROR', chCode: 47, message: 'Missing columns' } };
        return {
          ok: true,
          shard,
          replica: p.replica,
          chunks: (async function* () {
            yield* bytes('first', signal);
            throw new Error('cut');
          })(),
        };
      },
    };
    const { summary, got } = await run(invoker);
    expect(got).toEqual(['', 'first']);
    expect(summary).toMatchObject({
      succeeded: 0,
      failed: 2,
      missing: [
        { shard: 0, reason: 'error' },
        { shard: 1, reason: 'error' },
      ],
    });
    expect(summary.missing[1]!.message).toContain('cut');
  });

  it('an invoker without streaming answers buffered: the raw bytes as one chunk', async () => {
    const invoker: ShardInvoker = {
      invoke: async (shard, p) => ({
        ok: true,
        shard,
        replica: p.replica,
        meta: [],
        rows: [],
        raw: Buffer.from(`whole ${shard}`).toString('base64'),
        statistics: { elapsedMs: 1, rowsRead: 1, bytesRead: 1 },
      }),
    };
    const { summary, got } = await run(invoker);
    expect(got).toEqual(['whole 0', 'whole 1']);
    expect(summary).toMatchObject({ succeeded: 2, missing: [] });
  });

  it('unfinished: the attempts that may still run where they were sent, what a consumer that leaves cancels', async () => {
    // Shard 0 answers and is read to its end; shard 1 fails before its first byte; shard 2 is still computing.
    const invoker: ShardInvoker = {
      invoke: async () => {
        throw new Error('streams only');
      },
      invokeStream: async (shard, payload, signal): Promise<ShardStreamAnswer> => {
        if (shard === 1) return { ok: false, shard, replica: 0, error: { kind: 'error', code: 'QUERY_ERROR', message: 'no' } };
        if (shard === 2) await sleep(60_000, signal);
        return { ok: true, shard, replica: payload.replica, chunks: bytes('a|b', signal) };
      },
    };
    const streams = openShardStreams(
      {
        invoker,
        limiter: createLimiter(8),
        deadlineAt: Date.now() + 5_000,
        now: Date.now,
        hedge: { enabled: false, afterQuantile: 0.95, maxExtraPercent: 0 },
        state: createHedgeState({ coldStartDelayMs: 30 }),
      },
      [0, 1, 2].map((shard) => ({ shard, how: { replicaCount: 1, request: request(shard) } })),
    );
    const first = await streams.shards[0]!;
    expect((await streams.shards[1]!).outcome.status).toBe('error');
    expect(streams.unfinished().map((r) => r.shard)).toEqual([0, 2]);
    for await (const _ of first.chunks) {
      // read to its end
    }
    expect(streams.unfinished().map((r) => r.shard)).toEqual([2]);
    streams.stop(new Error('the consumer left'));
    await streams.shards[2];
    // Cut off by the stop, it may still run there: a consumer that leaves cancels it.
    expect(streams.unfinished().map((r) => [r.shard, r.stream])).toEqual([[2, true]]);
    streams.close();
  });
});
