// Embedded replica paths: relative to the config file (as loadTopology does), or to an explicit
// baseDir for a topology object; never silently to the working directory. One real shard host
// (chdb) per started stack.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseTopology } from '../../../shared/core/config/load.js';
import { startLocalStack } from '../../../local/stack.js';

let dir: string;
const config = {
  cluster: 'c',
  shards: [{ weight: 1, replicas: [{ embedded: 'data/shard-0' }] }],
  tables: { t_dist: { local: 't', shardingKey: { column: 'k', type: 'UInt64', function: 'identity' } } },
};

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'h10-stack-paths-'));
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

async function exec(url: string, sql: string) {
  const r = await fetch(`${url}/admin/exec`, { method: 'POST', body: JSON.stringify({ sql }) });
  expect(r.status, await r.clone().text()).toBe(200);
}

describe('local stack embedded paths', () => {
  it('a config file: relative to the file, whatever the working directory', async () => {
    const cfgDir = path.join(dir, 'conf');
    fs.mkdirSync(cfgDir);
    const file = path.join(cfgDir, 'topology.json');
    fs.writeFileSync(file, JSON.stringify(config));
    expect(process.cwd()).not.toBe(cfgDir);
    const stack = await startLocalStack({ configFile: path.relative(process.cwd(), file), logLevel: 'SILENT' });
    try {
      expect(stack.topo.shards[0]!.replicas[0]!.embedded).toBe(path.join(cfgDir, 'data/shard-0'));
      await exec(stack.url, 'CREATE TABLE default.marker (x UInt8) ENGINE = Memory');
    } finally {
      await stack.stop();
    }
    expect(fs.existsSync(path.join(cfgDir, 'data/shard-0'))).toBe(true);
    expect(fs.existsSync(path.join(process.cwd(), 'data/shard-0'))).toBe(false);
  }, 60_000);

  it('a topology object: relative to baseDir; without one, refused naming the JSON path', async () => {
    await expect(startLocalStack({ topo: parseTopology(config), logLevel: 'SILENT' })).rejects.toThrow(
      /\$\.shards\[0\]\.replicas\[0\]\.embedded: "data\/shard-0" is relative/,
    );
    const base = path.join(dir, 'base');
    const stack = await startLocalStack({ topo: parseTopology(config), baseDir: base, logLevel: 'SILENT' });
    try {
      expect(stack.topo.shards[0]!.replicas[0]!.embedded).toBe(path.join(base, 'data/shard-0'));
      await exec(stack.url, 'CREATE TABLE default.marker (x UInt8) ENGINE = Memory');
    } finally {
      await stack.stop();
    }
    expect(fs.existsSync(path.join(base, 'data/shard-0'))).toBe(true);
  }, 60_000);
});
