// Where a local stack keeps its embedded data (--data-dir) and how a stack finds out that another
// one holds a directory (the holder files), on real directories and real processes.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn } from 'node:child_process';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { parseTopology } from '../../../shared/core/config/load.js';
import { claimDataDirs, DataDirHeldError, HOLDER_FILE, readHolder } from '../../../local/data-dir-holders.js';
import { embeddedDirs, withDataDir } from '../../../local/data-dir.js';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'ch-scatter-data-dirs-'));
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

const TABLES = { t_dist: { local: 't', shardingKey: { column: 'k', type: 'UInt64', function: 'identity' } } };
const topoOf = (dirs: string[][]) =>
  parseTopology({ cluster: 'c', shards: dirs.map((replicas) => ({ replicas: replicas.map((embedded) => ({ embedded })) })), tables: TABLES });

describe('withDataDir', () => {
  const demo = topoOf([['/repo/.data/demo/shard-0a', '/repo/.data/demo/shard-0b'], ['/repo/.data/demo/shard-1']]);

  it('--data-dir DIR: the same names under DIR', () => {
    expect(embeddedDirs(withDataDir(demo, { dir: '/tmp/second' }))).toEqual(['/tmp/second/shard-0a', '/tmp/second/shard-0b', '/tmp/second/shard-1']);
  });

  it('--data-dir auto: beside the configured directory, one per port', () => {
    expect(embeddedDirs(withDataDir(demo, { perPort: 3001 }))).toEqual([
      '/repo/.data/demo-3001/shard-0a',
      '/repo/.data/demo-3001/shard-0b',
      '/repo/.data/demo-3001/shard-1',
    ]);
  });

  it('keeps nesting, and HTTP replicas as they are', () => {
    const topo = parseTopology({
      cluster: 'c',
      shards: [{ replicas: [{ embedded: '/d/a' }, { url: 'http://127.0.0.1:8123' }] }, { replicas: [{ embedded: '/d/a/b/c' }] }],
      tables: TABLES,
    });
    const moved = withDataDir(topo, { dir: '/x' });
    expect(embeddedDirs(moved)).toEqual(['/x/a', '/x/a/b/c']);
    expect(moved.shards[0]!.replicas[1]!.url).toBe('http://127.0.0.1:8123');
  });

  it('any set of directories: distinct ones stay distinct, under the new root, in the same layout', () => {
    const segment = fc.constantFrom('a', 'b', 'c', 'shard-0', 'shard-1');
    const dir = fc.array(segment, { minLength: 1, maxLength: 4 }).map((parts) => `/base/${parts.join('/')}`);
    fc.assert(
      fc.property(fc.uniqueArray(dir, { minLength: 1, maxLength: 6 }), (dirs) => {
        const moved = embeddedDirs(withDataDir(topoOf(dirs.map((d) => [d])), { dir: '/new' }));
        expect(new Set(moved).size).toBe(dirs.length);
        for (const m of moved) expect(m.startsWith('/new/') || m === '/new').toBe(true);
        for (let i = 0; i < dirs.length; i++)
          for (let j = 0; j < dirs.length; j++) expect(path.relative(moved[i]!, moved[j]!)).toBe(path.relative(dirs[i]!, dirs[j]!));
      }),
    );
  });
});

/** A live process that is not this one, and its pid; stopped by the returned function. */
async function otherProcess(): Promise<{ pid: number; stop: () => Promise<void> }> {
  const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
  await new Promise((r) => child.once('spawn', r));
  return {
    pid: child.pid!,
    stop: () =>
      new Promise((r) => {
        child.once('exit', () => r());
        child.kill();
      }),
  };
}

describe('claimDataDirs', () => {
  it('writes a holder file naming this process, then its URL; release removes it', () => {
    const dirs = [path.join(root, 'own', 'a'), path.join(root, 'own', 'b')];
    const claim = claimDataDirs(dirs);
    expect(readHolder(dirs[0]!)).toEqual({ pid: process.pid });
    claim.announce('http://127.0.0.1:3000');
    expect(dirs.map(readHolder)).toEqual([
      { pid: process.pid, url: 'http://127.0.0.1:3000' },
      { pid: process.pid, url: 'http://127.0.0.1:3000' },
    ]);
    claim.release();
    for (const d of dirs) expect(fs.existsSync(path.join(d, HOLDER_FILE))).toBe(false);
  });

  it('a directory this process already serves is refused', () => {
    const dir = path.join(root, 'twice');
    const claim = claimDataDirs([dir]);
    try {
      expect(() => claimDataDirs([dir])).toThrow(DataDirHeldError);
    } finally {
      claim.release();
    }
  });

  it('a directory a live stack holds is refused naming its pid and URL, and nothing is claimed', async () => {
    const other = await otherProcess();
    try {
      const free = path.join(root, 'live', 'free');
      const held = path.join(root, 'live', 'held');
      fs.mkdirSync(held, { recursive: true });
      fs.writeFileSync(path.join(held, HOLDER_FILE), JSON.stringify({ pid: other.pid, url: 'http://127.0.0.1:3000' }));
      let err: unknown;
      try {
        claimDataDirs([free, held]);
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(DataDirHeldError);
      expect((err as DataDirHeldError).dir).toBe(held);
      expect((err as DataDirHeldError).holder).toEqual({ pid: other.pid, url: 'http://127.0.0.1:3000' });
      expect((err as Error).message).toBe(`${held} is in use by the ch-scatter stack at http://127.0.0.1:3000 (pid ${other.pid})`);
      expect(readHolder(free)).toBeUndefined(); // the first directory was given back
      expect(readHolder(held)?.pid).toBe(other.pid); // and the other stack's file left alone
    } finally {
      await other.stop();
    }
  });

  it('a holder file whose process is gone, or that is unreadable, is taken over', async () => {
    const gone = await otherProcess();
    await gone.stop();
    const stale = path.join(root, 'stale');
    const torn = path.join(root, 'torn');
    fs.mkdirSync(stale, { recursive: true });
    fs.mkdirSync(torn, { recursive: true });
    fs.writeFileSync(path.join(stale, HOLDER_FILE), JSON.stringify({ pid: gone.pid, url: 'http://127.0.0.1:3000' }));
    fs.writeFileSync(path.join(torn, HOLDER_FILE), '{"pi');
    const claim = claimDataDirs([stale, torn]);
    expect([readHolder(stale), readHolder(torn)]).toEqual([{ pid: process.pid }, { pid: process.pid }]);
    claim.release();
  });
});
