// The tree's transport: sub-coordinators are Lambda functions (the coordinator code with a
// TreeRequest payload), invoked through the same @aws-sdk/client-lambda client settings as shard
// functions (maxAttempts 1, keep-alive, abort at the deadline). createSubCoordinatorFunction is
// the function side, for the local Invoke endpoint and for a Lambda handler to wrap.
import { InvokeCommand, type InvokeCommandOutput, type LambdaClient } from '@aws-sdk/client-lambda';
import { InvokeError } from '../../core/scatter/invoker.js';
import { createLambdaClient, sendWithSignal } from './lambda-invoker.js';
import { runSubCoordinator, type SubCoordinatorDeps, type TreeInvoker } from '../../core/scatter/tree.js';
import { treeResponseSchema, type TreeRequest, type TreeResponse } from '../../core/protocol/tree-wire.js';

export interface TreeLambdaOptions {
  /** Function name for sub-coordinator `group` (e.g. always the coordinator's own name). */
  functionName: (group: number) => string;
  endpoint?: string;
  region?: string;
  client?: LambdaClient;
}

export function createTreeLambdaInvoker(opts: TreeLambdaOptions): TreeInvoker & { close(): void } {
  const client = opts.client ?? createLambdaClient({ endpoint: opts.endpoint, region: opts.region });
  return {
    async invoke(group: number, req: TreeRequest, signal: AbortSignal): Promise<TreeResponse> {
      let out: InvokeCommandOutput;
      try {
        out = await sendWithSignal(
          client,
          new InvokeCommand({ FunctionName: opts.functionName(group), Payload: new TextEncoder().encode(JSON.stringify(req)) }),
          signal,
        );
      } catch (e) {
        if (signal.aborted) throw new InvokeError('aborted', 'sub-coordinator invoke aborted');
        const err = e as { name?: string; message?: string; $metadata?: { httpStatusCode?: number } };
        if (err.$metadata?.httpStatusCode === 429) throw new InvokeError('throttled', `throttled: ${err.message}`, err.name);
        throw new InvokeError('unavailable', `${err.name ?? 'Error'}: ${err.message ?? 'invoke failed'}`, err.name);
      }
      const text = out.Payload ? new TextDecoder().decode(out.Payload) : '';
      if (out.FunctionError) throw new InvokeError('unhandled', `sub-coordinator failed: ${text.slice(0, 300)}`, out.FunctionError);
      let raw: unknown;
      try {
        raw = JSON.parse(text);
      } catch {
        throw new InvokeError('malformed', 'sub-coordinator answer is not JSON');
      }
      const r = treeResponseSchema.safeParse(raw);
      if (!r.success) throw new InvokeError('malformed', `malformed sub-coordinator answer: ${r.error.issues[0]?.message ?? 'invalid'}`);
      return r.data as TreeResponse;
    },
    close: () => client.destroy(),
  };
}

/** The sub-coordinator as an invocable function: TreeRequest in, TreeResponse out. */
export function createSubCoordinatorFunction(deps: SubCoordinatorDeps): (payload: unknown) => Promise<TreeResponse> {
  return async (payload) => {
    const p = payload as Partial<TreeRequest> | null;
    if (p?.type !== 'tree' || !Array.isArray(p.tasks) || typeof p.deadline !== 'number' || typeof p.queryId !== 'string') {
      throw new Error('not a tree request');
    }
    return runSubCoordinator(p as TreeRequest, deps);
  };
}
