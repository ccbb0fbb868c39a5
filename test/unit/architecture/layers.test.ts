// The direction of imports, checked on every run: applications may import adapters and the core,
// adapters may import the core, and the core imports neither (nor AWS, nor a ClickHouse client).
// A regular expression over the source is enough here: every import in this repository is a static
// `import ... from '...'`, an `export ... from '...'` or a dynamic `import('...')` with a literal
// specifier, and a test of this scanner below keeps it honest about all three forms.
// Inside the core the same holds between its parts (CORE_ORDER, docs/architecture.md), and its
// files import each other in no circle.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');

/** Each layer and what it may import: other folders of the repository, and npm packages. */
interface Layer {
  folders: string[];
  packages: string[];
}
const CORE_PACKAGES = ['zod', 'xxhash-wasm'];
const LAYERS: Record<string, Layer> = {
  'shared/core': { folders: ['shared/core'], packages: CORE_PACKAGES },
  // What the adapters share about node:http (a kept-alive socket the server closed).
  'shared/adapters/http': { folders: ['shared/core', 'shared/adapters/http'], packages: CORE_PACKAGES },
  'shared/adapters/aws': {
    folders: ['shared/core', 'shared/adapters/http', 'shared/adapters/aws'],
    packages: [...CORE_PACKAGES, '@aws-sdk/', '@smithy/', '@bokuweb/zstd-wasm'],
  },
  'shared/adapters/clickhouse': {
    folders: ['shared/core', 'shared/adapters/http', 'shared/adapters/clickhouse'],
    packages: [...CORE_PACKAGES, '@clickhouse/client', 'chdb'],
  },
  functions: { folders: ['shared/core', 'shared/adapters', 'functions'], packages: ['*'] },
  local: { folders: ['shared/core', 'shared/adapters', 'functions', 'local'], packages: ['*'] },
  bin: { folders: ['shared/core', 'shared/adapters', 'local', 'bin'], packages: ['*'] },
  // The CDK app deploys the functions: it may read what they declare (their metric names).
  cdk: { folders: ['shared/core', 'functions', 'cdk'], packages: ['*'] },
};

/**
 * The core's parts, lowest first: a part may import only parts on a lower line (and itself). A new
 * folder or top-level file of shared/core/ must be placed here.
 */
const CORE_ORDER: string[][] = [
  ['errors.ts', 'json-path.ts', 'surrogate-escape.ts', 'bounded-cache.ts'],
  ['config'],
  ['sql'],
  ['clickhouse'],
  ['protocol'],
  ['sharding', 'shard'],
  ['partials', 'router'],
  ['plan'],
  ['scatter'],
  ['clickhouse-http'],
];

/** The part of the core a file belongs to: its folder under shared/core/, or the file itself at the top. */
function corePartOf(file: string): string | undefined {
  const parts = file.split('/');
  if (parts[0] !== 'shared' || parts[1] !== 'core' || parts.length < 3) return undefined;
  return parts[2]!;
}

function coreLevelOf(part: string): number {
  return CORE_ORDER.findIndex((level) => level.includes(part));
}

/** Why an import from one core file to another breaks CORE_ORDER, or undefined when it does not. */
function coreOrderViolation(from: string, to: string): string | undefined {
  const a = corePartOf(from);
  const b = corePartOf(to);
  if (a === undefined || b === undefined || a === b) return undefined;
  const la = coreLevelOf(a);
  const lb = coreLevelOf(b);
  if (la < 0) return `${from}: shared/core/${a} is in no level of CORE_ORDER`;
  if (lb < 0) return `${to}: shared/core/${b} is in no level of CORE_ORDER`;
  if (lb >= la)
    return `${from} -> ${to} (shared/core/${a} may import only parts below it in CORE_ORDER, and shared/core/${b} is ${lb > la ? 'above it' : 'beside it'})`;
  return undefined;
}

/** Each import circle among `edges` (file -> the files it imports), as its files in sorted order. */
function importCircles(edges: ReadonlyMap<string, readonly string[]>): string[][] {
  // Tarjan's strongly connected components; a component of two or more files is a circle.
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const circles: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next);
    next++;
    stack.push(v);
    onStack.add(v);
    for (const w of edges.get(v) ?? []) {
      if (!edges.has(w)) continue;
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      component.push(w);
    } while (w !== v);
    if (component.length > 1) circles.push(component.sort());
  };
  for (const v of edges.keys()) if (!index.has(v)) visit(v);
  return circles;
}

/** Every core file and the core files it imports (repository paths, `.ts`). */
function coreImports(): Map<string, string[]> {
  const edges = new Map<string, string[]>();
  for (const file of sourceFiles('shared/core')) {
    const targets = importsOf(readFileSync(join(ROOT, file), 'utf8'))
      .filter((spec) => spec.startsWith('.'))
      .map((spec) => relative(ROOT, resolve(ROOT, dirname(file), spec)).replace(/\.js$/, '.ts'));
    edges.set(file, targets);
  }
  return edges;
}

function layerOf(file: string): string | undefined {
  return Object.keys(LAYERS)
    .sort((a, b) => b.length - a.length)
    .find((l) => file === l || file.startsWith(`${l}/`));
}

function sourceFiles(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return e.name === 'node_modules' ? [] : sourceFiles(path);
    return /\.(ts|mjs)$/.test(e.name) ? [path] : [];
  });
}

/** Every module specifier a source text imports or re-exports, statically or dynamically. */
function importsOf(text: string): string[] {
  const found: { at: number; spec: string }[] = [];
  const forms = [
    /^[ \t]*(?:import|export)\b[^;'"]*?\bfrom\s*(['"])([^'"]+)\1/gm, // import x from '...'; export { x } from '...'
    /^[ \t]*import\s*(['"])([^'"]+)\1/gm, // import '...'
    /\bimport\s*\(\s*(['"])([^'"]+)\1\s*\)/g, // import('...')
  ];
  for (const re of forms) for (const m of text.matchAll(re)) found.push({ at: m.index, spec: m[2]! });
  return found.sort((a, b) => a.at - b.at).map((f) => f.spec);
}

function violations(): string[] {
  const found: string[] = [];
  for (const top of ['shared', 'functions', 'local', 'bin', 'cdk']) {
    for (const file of sourceFiles(top)) {
      const layer = layerOf(file);
      if (!layer) {
        found.push(`${file}: in no layer (add its folder to LAYERS)`);
        continue;
      }
      const rules = LAYERS[layer]!;
      for (const spec of importsOf(readFileSync(join(ROOT, file), 'utf8'))) {
        if (spec.startsWith('node:')) continue;
        if (spec.startsWith('.')) {
          const target = relative(ROOT, resolve(ROOT, dirname(file), spec));
          if (!rules.folders.some((f) => target === f || target.startsWith(`${f}/`)))
            found.push(`${file} -> ${target} (${layer} may import ${rules.folders.join(', ')})`);
        } else if (
          !rules.packages.includes('*') &&
          !rules.packages.some((p) => (p.endsWith('/') ? spec.startsWith(p) : spec === p || spec.startsWith(`${p}/`)))
        ) {
          found.push(`${file} -> package ${spec} (${layer} may use ${rules.packages.join(', ')})`);
        }
      }
    }
  }
  return found;
}

describe('import direction', () => {
  it('no import points upward or sideways out of its layer', () => {
    expect(violations()).toEqual([]);
  });

  it('the scanner sees static, re-exported and dynamic imports', () => {
    const text = [
      "import { a } from './a.js';",
      "export { b } from '../b.js';",
      'import type {\n  C,\n} from "c";',
      "const d = await import('./d.js');",
      "import './e.js';",
      "// a comment that says we read from 'nowhere' is no import",
    ].join('\n');
    expect(importsOf(text)).toEqual(['./a.js', '../b.js', 'c', './d.js', './e.js']);
  });

  it('inside the core, no import points up or sideways in CORE_ORDER', () => {
    const found: string[] = [];
    for (const [file, targets] of coreImports()) {
      const own = corePartOf(file)!;
      if (coreLevelOf(own) < 0) found.push(`${file}: shared/core/${own} is in no level of CORE_ORDER`);
      for (const target of targets) {
        const v = coreOrderViolation(file, target);
        if (v) found.push(v);
      }
    }
    expect([...new Set(found)]).toEqual([]);
  });

  it("the core's files import each other in no circle", () => {
    expect(importCircles(coreImports())).toEqual([]);
  });

  it('the order rule refuses an upward or sideways edge and allows a downward one', () => {
    expect(coreOrderViolation('shared/core/sql/lexer.ts', 'shared/core/protocol/exact-json.ts')).toMatch(/core\/protocol is above it/);
    expect(coreOrderViolation('shared/core/protocol/tree-wire.ts', 'shared/core/scatter/call-shard.ts')).toMatch(/core\/scatter is above it/);
    expect(coreOrderViolation('shared/core/router/route.ts', 'shared/core/partials/values.ts')).toMatch(/core\/partials is beside it/);
    expect(coreOrderViolation('shared/core/new-part/x.ts', 'shared/core/sql/ast.ts')).toMatch(/core\/new-part is in no level/);
    expect(coreOrderViolation('shared/core/scatter/gather.ts', 'shared/core/plan/types.ts')).toBeUndefined();
    expect(coreOrderViolation('shared/core/sql/lexer.ts', 'shared/core/surrogate-escape.ts')).toBeUndefined();
    expect(coreOrderViolation('shared/core/scatter/tput/attach.ts', 'shared/core/scatter/run-query.ts')).toBeUndefined();
  });

  it('the circle finder reports a circle and leaves a chain alone', () => {
    const chain = new Map([
      ['a', ['b']],
      ['b', ['c']],
      ['c', []],
    ]);
    expect(importCircles(chain)).toEqual([]);
    const circle = new Map([
      ['run-query', ['attach', 'leaf']],
      ['attach', ['prepass']],
      ['prepass', ['run-query']],
      ['leaf', []],
    ]);
    expect(importCircles(circle)).toEqual([['attach', 'prepass', 'run-query']]);
  });

  it('a core file importing an adapter or AWS would be caught', () => {
    expect(layerOf('shared/core/scatter/gather.ts')).toBe('shared/core');
    expect(layerOf('shared/adapters/aws/sigv4.ts')).toBe('shared/adapters/aws');
    const core = LAYERS['shared/core']!;
    expect(core.folders.includes('shared/adapters')).toBe(false);
    expect(core.packages.some((p) => '@aws-sdk/client-lambda'.startsWith(p))).toBe(false);
  });
});
