// Functions that reach the file system, the network or the server's internals are refused by the
// planner, wherever they stand, before any shard is asked (readonly=2 does not stop reads).
import { describe, expect, it } from 'vitest';
import { planQueryWith } from '../../../shared/core/plan/index.js';
import { ScatterError } from '../../../shared/core/errors.js';
import { passThroughSplit, testTopology } from './fixtures.js';

const topo = testTopology();
const T = 'analytics.events_dist';

async function refusal(sql: string): Promise<ScatterError> {
  try {
    await planQueryWith(sql, topo, {}, passThroughSplit);
  } catch (e) {
    if (e instanceof ScatterError) return e;
    throw e;
  }
  throw new Error(`planned: ${sql}`);
}

describe('refused functions', () => {
  it.each([
    [`SELECT file('/etc/passwd') AS f FROM ${T} LIMIT 1`, 'file'],
    [`SELECT count() FROM ${T} WHERE sensor = FILE('/etc/hostname')`, 'FILE'],
    [`SELECT sensor FROM ${T}\nWHERE length(url('http://127.0.0.1:1/', 'CSV')) > 0`, 'url'],
    [`SELECT count() FROM ${T} WHERE sensor IN (SELECT toString(filesystemAvailable()))`, 'filesystemAvailable'],
    [`SELECT demangle('x') FROM ${T}`, 'demangle'],
    [`SELECT count() FROM ${T} GROUP BY sensor HAVING max(getSetting('readonly')) = 0`, 'getSetting'],
  ])('%s', async (sql, name) => {
    // the position of the call: where its name starts in the text
    const at = sql.indexOf(`${name}(`);
    const before = sql.slice(0, at).split('\n');
    const line = before.length;
    const column = before[before.length - 1]!.length + 1;
    const e = await refusal(sql);
    expect(e.code).toBe('UNSUPPORTED');
    expect(e.status).toBe(400);
    expect(e.message).toContain(`function ${name}() is not allowed`);
    expect(e.position).toEqual({ line, column });
  });

  it('leaves ordinary functions alone', async () => {
    const p = await planQueryWith(`SELECT lower(sensor) AS s, length(sensor) AS n FROM ${T} WHERE sensor LIKE 'a%'`, topo, {}, passThroughSplit);
    expect(p.shards.some((s) => !s.skipped)).toBe(true);
  });
});
