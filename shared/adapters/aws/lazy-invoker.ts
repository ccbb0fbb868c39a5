// A ShardInvoker whose real invoker is built on first use: the SDK invoker's module (and the AWS SDK
// under it) is imported only when a request actually goes through it, so a coordinator that never
// sends one (the default query path uses the lean invoker) never loads the SDK.
import { InvokeError, type ShardInvoker } from '../../core/scatter/invoker.js';
import type { ShardAdminRequest, ShardBatchRequest, ShardCancelRequest, ShardRequest, ShardResponse } from '../../core/protocol/shard-wire.js';

type Closable = ShardInvoker & { close(): void };

export function lazyInvoker(load: () => Promise<Closable>): Closable {
  let loaded: Promise<Closable> | undefined;
  let closed = false;
  let closedInvoker = false;
  const closeOnce = (inv: Closable) => {
    if (closedInvoker) return;
    closedInvoker = true;
    inv.close();
  };
  const get = (): Promise<Closable> =>
    (loaded ??= load().then(
      (inv) => {
        if (closed) closeOnce(inv); // closed while it was being built
        return inv;
      },
      (e: unknown) => {
        loaded = undefined; // a later request tries again
        throw new InvokeError('unavailable', `cannot load the invoker: ${(e as Error).message}`);
      },
    ));
  return {
    async invoke(shard: number, payload: ShardRequest, signal: AbortSignal): Promise<ShardResponse> {
      return (await get()).invoke(shard, payload, signal);
    },
    async invokeBatch(shard: number, payload: ShardBatchRequest, signal: AbortSignal): Promise<ShardResponse> {
      const inv = await get();
      if (!inv.invokeBatch) throw new InvokeError('unavailable', 'this invoker sends no batches');
      return inv.invokeBatch(shard, payload, signal);
    },
    async cancel(shard: number, payload: ShardCancelRequest, signal: AbortSignal): Promise<unknown> {
      const inv = await get();
      return inv.cancel?.(shard, payload, signal);
    },
    async invokeAdmin(shard: number, payload: ShardAdminRequest, signal: AbortSignal): Promise<unknown> {
      const inv = await get();
      if (!inv.invokeAdmin) throw new InvokeError('unavailable', 'this invoker sends no admin requests');
      return inv.invokeAdmin(shard, payload, signal);
    },
    close() {
      closed = true;
      loaded?.then(closeOnce, () => undefined);
    },
  };
}
