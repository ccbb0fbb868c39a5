// Where a local stack's embedded replicas keep their data: where the config says, or elsewhere for a
// second stack on the same config (`ch-scatter dev --data-dir`). A directory serves one stack at a time.
import path from 'node:path';
import type { Topology } from '../shared/core/config/schema.js';

/**
 * `dir`: every embedded directory moved under it, keeping its path below the directory all of them
 * share (`.data/demo/shard-0a` under `/tmp/x` is `/tmp/x/shard-0a`). `perPort`: that shared
 * directory with `-<port>` appended (`.data/demo-3001/shard-0a`), one set of directories per port.
 */
export type DataDirChoice = { dir: string } | { perPort: number };

/** The embedded directories of a topology whose embedded paths are absolute. */
export function embeddedDirs(topo: Pick<Topology, 'shards'>): string[] {
  return topo.shards.flatMap((s) => s.replicas.flatMap((r) => (r.embedded ? [r.embedded] : [])));
}

/** `topo` (embedded paths absolute) with its embedded directories where `choice` puts them. */
export function withDataDir(topo: Topology, choice: DataDirChoice): Topology {
  const dirs = embeddedDirs(topo);
  if (dirs.length === 0) return topo;
  const shared = sharedParent(dirs);
  const root = 'dir' in choice ? path.resolve(choice.dir) : `${shared}-${choice.perPort}`;
  const moved = (d: string) => path.join(root, path.relative(shared, d));
  return {
    ...topo,
    shards: topo.shards.map((s) => ({ ...s, replicas: s.replicas.map((r) => (r.embedded ? { ...r, embedded: moved(r.embedded) } : r)) })),
  };
}

/** The deepest directory that contains every one of `dirs` (each itself excluded). */
function sharedParent(dirs: string[]): string {
  const split = (d: string) => path.dirname(d).split(path.sep);
  let common = split(dirs[0]!);
  for (const d of dirs.slice(1)) {
    const parts = split(d);
    let n = 0;
    while (n < common.length && n < parts.length && common[n] === parts[n]) n++;
    common = common.slice(0, n);
  }
  return common.join(path.sep) || path.sep;
}
