// ClickHouse error texts quote row values ("Cannot parse string 'x' as UInt64"). The coordinator's
// log lines at INFO/WARN carry codes and counts only; the text is written at DEBUG alone.
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { httpEvent } from '../../support/http-event.js';
import type { Context } from 'aws-lambda';
import { createCoordinatorHandler, createTools } from '../../../functions/coordinator/handler.js';
import type { CoordinatorDeps } from '../../../functions/coordinator/deps.js';
import { createHedgeState } from '../../../shared/core/scatter/hedge.js';
import { fakeInvoker, sumPlan, topo } from '../scatter/fakes.js';

beforeAll(() => {
  process.env.POWERTOOLS_METRICS_DISABLED = 'true';
  delete process.env.POWERTOOLS_LOG_LEVEL;
});
afterEach(() => vi.restoreAllMocks());

const ROW_VALUE = 'ROWVALUE-7f3a';
const ctx = { getRemainingTimeInMillis: () => 30_000, awsRequestId: 'r', functionName: 'coord' } as unknown as Context;
const event = httpEvent('POST', '/query', JSON.stringify({ sql: 'SELECT count() AS c FROM db.t_dist' }), {}, 'req-1');

async function logsAt(level: 'INFO' | 'DEBUG'): Promise<{ out: string; body: { partial: boolean } }> {
  const lines: string[] = [];
  const capture = (chunk: unknown) => {
    lines.push(String(chunk));
    return true;
  };
  vi.spyOn(process.stdout, 'write').mockImplementation(capture as typeof process.stdout.write);
  vi.spyOn(process.stderr, 'write').mockImplementation(capture as typeof process.stderr.write);
  const d: CoordinatorDeps = {
    topo: topo([1, 1]),
    invoker: fakeInvoker((s) =>
      s === 1 ? { kind: 'shardFailure', errKind: 'error', message: `Code: 6. Cannot parse string '${ROW_VALUE}' as UInt64` } : { kind: 'ok', c: 1 },
    ),
    planQuery: async () => sumPlan(2),
    explainPlan: () => ({}),
    hedgeState: createHedgeState(),
  };
  const h = createCoordinatorHandler(async () => d, createTools({ logLevel: level }));
  const res = (await h(event as never, ctx)) as { body: string };
  vi.restoreAllMocks();
  return { out: lines.join(''), body: JSON.parse(res.body) };
}

describe('coordinator logs', () => {
  it('carry no ClickHouse error text (which may quote rows) at INFO', async () => {
    const { out, body } = await logsAt('INFO');
    expect(body.partial).toBe(true); // the failure did happen and was reported to the client
    expect(out).toMatch(/shard missing/);
    expect(out).not.toContain(ROW_VALUE);
  });

  it('write the text at DEBUG, for an operator who asks for it', async () => {
    const { out } = await logsAt('DEBUG');
    expect(out).toContain(ROW_VALUE);
  });
});
