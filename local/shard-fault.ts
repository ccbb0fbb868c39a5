// A replica's injected `fault` (local stack only), applied before the shard handler runs: the same
// rules whether the shard function lives in its own host process or in the Invoke endpoint's.
import type { z } from 'zod';
import type { faultSchema } from '../shared/core/config/schema.js';

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
