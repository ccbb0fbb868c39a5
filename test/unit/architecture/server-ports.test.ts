// Every suite and bench section that starts clickhouse-server instances takes its own ports: HTTP
// on portBase..portBase+n-1 and native TCP on portBase+50.. (scripts/ch-cluster.sh). Test files run
// in parallel processes (and the bench smoke test runs bench sections beside them), so two ranges
// that overlap make one of the servers fail to start, at random. This reads the fixed port bases
// from the sources and checks that no two ranges share a port.
import { describe, expect, it } from 'vitest';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

const ROOT = join(import.meta.dirname, '../../..');

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) return name === 'node_modules' ? [] : files(p);
    return p.endsWith('.ts') ? [p] : [];
  });
}

interface Range {
  file: string;
  ports: number[];
}

function rangesOf(file: string): Range[] {
  const text = readFileSync(file, 'utf8');
  const constant = (name: string) => {
    const m = new RegExp(`const ${name} = (\\d[\\d_]*);`).exec(text);
    return m ? Number(m[1]!.replace(/_/g, '')) : undefined;
  };
  const value = (s: string) => (/^\d[\d_]*$/.test(s) ? Number(s.replace(/_/g, '')) : constant(s));
  const out: Range[] = [];
  const rel = relative(ROOT, file);
  for (const m of text.matchAll(/useChServers\(\{\s*n:\s*(\w+),\s*portBase:\s*(\w+)/g)) {
    const n = value(m[1]!);
    const base = value(m[2]!);
    if (n === undefined || base === undefined) throw new Error(`${rel}: cannot read the port range of ${m[0]}`);
    out.push({ file: rel, ports: span(base, n) });
  }
  // Bench sections: startCluster(SHARDS, PORT_BASE, ...).
  if (/startCluster\(SHARDS, PORT_BASE/.test(text)) {
    const n = constant('SHARDS');
    const base = constant('PORT_BASE');
    if (n === undefined || base === undefined) throw new Error(`${rel}: cannot read SHARDS / PORT_BASE`);
    out.push({ file: rel, ports: span(base, n) });
  }
  return out;
}

const span = (base: number, n: number) => Array.from({ length: n }, (_, i) => [base + i, base + 50 + i]).flat();

describe('clickhouse-server port ranges', () => {
  const self = import.meta.filename;
  const ranges = [...files(join(ROOT, 'test')), ...files(join(ROOT, 'bench'))].filter((f) => f !== self).flatMap(rangesOf);

  it('finds the suites that start servers (the scan itself works)', () => {
    expect(ranges.length).toBeGreaterThan(15);
    expect(ranges.some((r) => r.file.startsWith('bench/'))).toBe(true);
  });

  it('no two suites or bench sections share a port', () => {
    const owner = new Map<number, string>();
    const clashes: string[] = [];
    for (const r of ranges) {
      for (const p of r.ports) {
        const o = owner.get(p);
        if (o !== undefined && o !== r.file) clashes.push(`${p}: ${o} and ${r.file}`);
        owner.set(p, r.file);
      }
    }
    expect(clashes).toEqual([]);
  });
});
