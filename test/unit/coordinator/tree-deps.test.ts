// loadDefaultDeps' tree wiring: deps.tree exists only when query.treeFanoutAbove > 0 AND the cluster
// is wider than it, and it invokes the coordinator's own function (CH_SCATTER_SELF_FUNCTION, else
// AWS_LAMBDA_FUNCTION_NAME); a tree configured without a known name is refused.
import { describe, expect, it } from 'vitest';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { selfFunctionName, treeDeps } from '../../../functions/coordinator/deps.js';
import { createLambdaClient } from '../../../shared/adapters/aws/lambda-invoker.js';
import type { TreeRequest } from '../../../shared/core/protocol/tree-wire.js';
import { topo } from '../scatter/fakes.js';

describe('coordinator tree deps', () => {
  it('the own function name: CH_SCATTER_SELF_FUNCTION, else AWS_LAMBDA_FUNCTION_NAME', () => {
    expect(selfFunctionName({ CH_SCATTER_SELF_FUNCTION: 'a', AWS_LAMBDA_FUNCTION_NAME: 'b' })).toBe('a');
    expect(selfFunctionName({ AWS_LAMBDA_FUNCTION_NAME: 'b' })).toBe('b');
    expect(selfFunctionName({})).toBeUndefined();
  });

  it('no tree when treeFanoutAbove is 0 or the cluster is not wider than it', async () => {
    const client = createLambdaClient({ endpoint: 'http://127.0.0.1:1' });
    expect(await treeDeps(topo([1, 1, 1, 1]), { CH_SCATTER_SELF_FUNCTION: 'x' }, client)).toBeUndefined();
    expect(await treeDeps(topo([1, 1, 1, 1], { treeFanoutAbove: 4 }), { CH_SCATTER_SELF_FUNCTION: 'x' }, client)).toBeUndefined();
    await expect(treeDeps(topo([1, 1, 1, 1], { treeFanoutAbove: 2 }), {}, client)).rejects.toThrow(/CH_SCATTER_SELF_FUNCTION/);
    client.destroy();
  });

  it('the tree invoker sends the TreeRequest to the coordinator function itself', async () => {
    const seen: Array<{ name: string; body: TreeRequest }> = [];
    const server = createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        const name = decodeURIComponent(/functions\/([^/]+)\/invocations/.exec(req.url ?? '')?.[1] ?? '');
        const t = JSON.parse(body) as TreeRequest;
        seen.push({ name, body: t });
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ ok: true, group: t.group, mode: 'relayed', parts: [], outcomes: [], statistics: { elapsedMs: 1, cpuMs: 1 } }));
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    const client = createLambdaClient({ endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}` });
    try {
      const tree = await treeDeps(topo([1, 1, 1], { treeFanoutAbove: 2 }), { AWS_LAMBDA_FUNCTION_NAME: 'my-coordinator' }, client);
      expect(tree).toBeDefined();
      const req: TreeRequest = {
        type: 'tree',
        queryId: 'q',
        group: 1,
        deadline: Date.now() + 5000,
        settings: {},
        external: [],
        hedge: { enabled: false, afterQuantile: 0.95, maxExtraPercent: 5 },
        tasks: [{ shard: 2, sql: 'SELECT 1', external: [] }],
        premerge: false,
      };
      const res = await tree!.invoke(1, req, AbortSignal.timeout(5000));
      expect(res).toMatchObject({ ok: true, group: 1, mode: 'relayed' });
      expect(seen).toEqual([{ name: 'my-coordinator', body: req }]);
    } finally {
      client.destroy();
      server.closeAllConnections();
      server.close();
    }
  });
});
