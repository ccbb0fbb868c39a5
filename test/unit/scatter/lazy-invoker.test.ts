// The coordinator's SDK invoker is built on its first request (shared/adapters/aws/lazy-invoker.ts): built
// once however many requests race for it, never built without a request, closed even when closed
// before it was built, and a failed build answers InvokeError 'unavailable' and is retried later.
import { describe, expect, it } from 'vitest';
import { lazyInvoker } from '../../../shared/adapters/aws/lazy-invoker.js';
import { InvokeError, type ShardInvoker } from '../../../shared/core/scatter/invoker.js';
import type { ShardRequest, ShardResponse } from '../../../shared/core/protocol/shard-wire.js';

const request = { type: 'query', shard: 0, replica: 0 } as unknown as ShardRequest;
const answer = { ok: true, shard: 0, replica: 0, meta: [], rows: [], statistics: { elapsedMs: 0, rowsRead: 0, bytesRead: 0 } } as ShardResponse;

function fake() {
  const calls: string[] = [];
  const inv: ShardInvoker & { close(): void } = {
    invoke: async () => {
      calls.push('invoke');
      return answer;
    },
    invokeAdmin: async () => {
      calls.push('admin');
      return 'admin-answer';
    },
    close: () => calls.push('close'),
  };
  return { inv, calls };
}

describe('lazyInvoker', () => {
  it('builds the invoker once, on the first request, and forwards every request', async () => {
    const { inv, calls } = fake();
    let builds = 0;
    const lazy = lazyInvoker(async () => {
      builds++;
      return inv;
    });
    expect(builds).toBe(0);
    const signal = new AbortController().signal;
    const got = await Promise.all([lazy.invoke(0, request, signal), lazy.invoke(0, request, signal), lazy.invokeAdmin!(1, {} as never, signal)]);
    expect(got).toEqual([answer, answer, 'admin-answer']);
    expect(builds).toBe(1);
    expect(calls.sort()).toEqual(['admin', 'invoke', 'invoke']);
    lazy.close();
    await new Promise((r) => setImmediate(r));
    expect(calls.filter((c) => c === 'close')).toEqual(['close']);
  });

  it('closes an invoker whose build finishes after close()', async () => {
    const { inv, calls } = fake();
    let release!: () => void;
    const lazy = lazyInvoker(() => new Promise((r) => (release = () => r(inv))));
    const pending = lazy.invoke(0, request, new AbortController().signal);
    lazy.close();
    release();
    await pending;
    await new Promise((r) => setImmediate(r));
    expect(calls.filter((c) => c === 'close')).toEqual(['close']);
  });

  it('a failed build is an unavailable invocation, and the next request builds again', async () => {
    const { inv } = fake();
    let builds = 0;
    const lazy = lazyInvoker(async () => {
      if (++builds === 1) throw new Error('chunk missing');
      return inv;
    });
    const signal = new AbortController().signal;
    const e = await lazy.invoke(0, request, signal).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(InvokeError);
    expect(e).toMatchObject({ kind: 'unavailable', message: expect.stringContaining('chunk missing') });
    expect(await lazy.invoke(0, request, signal)).toEqual(answer);
    expect(builds).toBe(2);
  });
});
