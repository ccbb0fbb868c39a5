// A replica's injected `fault` (local stack only), applied before the shard handler runs: the same
// rules whether the shard function lives in its own host process or in the Invoke endpoint's.
import type { z } from 'zod';
import type { faultSchema } from '../shared/core/config/schema.js';
import { streamedResponse, type StreamedResponse } from './response-stream.mjs';

export type Fault = z.infer<typeof faultSchema>;

/**
 * Delay and/or fail this invocation as `fault` says. `crash` is the caller's to honour (only a
 * host process can die mid-invoke), so it is not looked at here.
 */
export async function applyFault(fault: Fault | undefined, random: () => number = Math.random): Promise<void> {
  if (!fault) return;
  if (fault.delayMs && random() < (fault.delayProbability ?? 1)) {
    await new Promise((r) => setTimeout(r, fault.delayMs));
  }
  if (fault.error !== undefined && random() < (fault.errorProbability ?? 1)) {
    throw new Error(fault.error);
  }
}

/**
 * A streamed answer as `cutStreamAfterBytes` leaves it: its first bytes, then the runtime's exit
 * (Runtime.ExitError) as if the function died mid-stream; untouched without that fault.
 */
export function cutStream(fault: Fault | undefined, s: StreamedResponse): StreamedResponse {
  const limit = fault?.cutStreamAfterBytes;
  if (limit === undefined) return s;
  async function* cut(): AsyncGenerator<Uint8Array> {
    let left = limit!;
    for await (const c of s.body) {
      if (c.byteLength >= left) {
        if (left > 0) yield c.subarray(0, left);
        s.cancel();
        throw Object.assign(new Error(`Runtime exited with error: the stream was cut after ${limit} bytes (fault)`), { name: 'Runtime.ExitError' });
      }
      left -= c.byteLength;
      yield c;
    }
  }
  return streamedResponse(s.contentType, cut(), (e) => s.cancel(e));
}
