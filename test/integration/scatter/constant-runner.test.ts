// The coordinator's constant runner (the sharding key's constant operands folded on one engine): the
// first reachable shard's engine answers, its refusal names that shard, and its request is one of the
// request's outcomes (and logged through onShard) as a GLOBAL subquery's requests are. Real chdb engine
// behind the real shard function; shard 0 made unreachable by its invoker.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEmbeddedAccess } from '../../../shared/adapters/clickhouse/embedded.js';
import type { ClickHouseAccess } from '../../../shared/core/clickhouse/port.js';
import type { ShardRequest } from '../../../shared/core/protocol/shard-wire.js';
import type { ShardOutcome } from '../../../shared/core/scatter/call-shard.js';
import type { ShardInvoker } from '../../../shared/core/scatter/invoker.js';
import { constantRunner } from '../../../shared/core/scatter/one-engine.js';
import { parseSelect } from '../../../shared/core/sql/parse.js';
import { oneEngineDeps } from '../../support/one-engine-deps.js';

process.env.POWERTOOLS_LOG_LEVEL = 'SILENT';
let dir: string;
let ch: ClickHouseAccess;
beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'constant-runner-'));
  ch = await createEmbeddedAccess({ path: dir });
}, 120_000);
afterAll(async () => {
  await ch?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

function runner(down: number[]) {
  const sent: ShardRequest[] = [];
  const d = oneEngineDeps(
    { cluster: 'c', table: 'db.t_dist', local: 'db.t', shardingKey: { column: 'k', type: 'UInt8', function: 'identity' } },
    () => ch,
    sent,
  );
  const invoker: ShardInvoker = {
    invoke: (shard, p, signal) => (down.includes(shard) ? Promise.reject(new Error(`shard ${shard} unreachable`)) : d.invoker.invoke(shard, p, signal)),
  };
  const outcomes: ShardOutcome[] = [];
  const logged: ShardOutcome[] = [];
  const run = constantRunner({ topo: d.topo, invoker, deadlineAt: Date.now() + 20_000, queryId: 'q', now: Date.now, onShard: (o) => logged.push(o) }, outcomes);
  return { run, outcomes, logged, sent };
}

const refusal = (p: Promise<unknown>) =>
  p.then(
    () => undefined,
    (e: unknown) => e as { code: string; message: string },
  );

describe('the constant runner', () => {
  it('answers on the first reachable shard, its request one outcome of that shard, logged', async () => {
    const r = runner([0]);
    const a = await r.run(parseSelect('SELECT toUInt8(1 + 2) AS v'));
    expect(a.rows).toEqual([{ v: 3 }]);
    expect(r.outcomes.map((o) => [o.shard, o.status])).toEqual([[1, 'ok']]);
    expect(r.logged).toEqual(r.outcomes);
    expect(r.outcomes[0]!.endedAt!).toBeGreaterThanOrEqual(r.outcomes[0]!.startedAt!);
  });

  it("an engine's refusal names the shard that answered, with ClickHouse's code", async () => {
    for (const [down, shard] of [
      [[0], 1],
      [[], 0],
    ] as const) {
      const r = runner([...down]);
      const e = await refusal(r.run(parseSelect("SELECT toUInt8('x') AS v")));
      expect(e?.code).toBe('QUERY_ERROR');
      expect(e?.message).toContain(`ClickHouse rejected the query on shard ${shard} (ClickHouse error 6 CANNOT_PARSE_TEXT)`);
      expect(r.outcomes.map((o) => [o.shard, o.status, o.chCode])).toEqual([[shard, 'error', 6]]);
    }
  });

  it('one request per text: asked again, the outcome is listed once, and again after the outcomes are cleared', async () => {
    const r = runner([]);
    const stmt = parseSelect('SELECT 1 + 1 AS v');
    await r.run(stmt);
    await r.run(stmt);
    expect(r.sent.length).toBe(1);
    expect(r.outcomes.length).toBe(1);
    r.outcomes.length = 0;
    await r.run(stmt);
    expect(r.sent.length).toBe(1);
    expect(r.outcomes.map((o) => o.shard)).toEqual([0]);
  });

  it('no shard reachable: no answer, every shard tried, the last one listed as unavailable', async () => {
    const r = runner([0, 1]);
    const e = await refusal(r.run(parseSelect('SELECT 1 AS v')));
    expect(e?.code).toBe('SHARD_ERROR');
    expect(r.outcomes.map((o) => [o.shard, o.status])).toEqual([[1, 'unavailable']]);
  });
});
