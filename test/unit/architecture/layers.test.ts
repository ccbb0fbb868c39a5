// The direction of imports, checked on every run: applications may import adapters and the core,
// adapters may import the core, and the core imports neither (nor AWS, nor a ClickHouse client).
// A regular expression over the source is enough here: every import in this repository is a static
// `import ... from '...'`, an `export ... from '...'` or a dynamic `import('...')` with a literal
// specifier, and a test of this scanner below keeps it honest about all three forms.
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
  core: { folders: ['core'], packages: CORE_PACKAGES },
  'adapters/aws': { folders: ['core', 'adapters/aws'], packages: [...CORE_PACKAGES, '@aws-sdk/', '@smithy/'] },
  'adapters/clickhouse': { folders: ['core', 'adapters/clickhouse'], packages: [...CORE_PACKAGES, '@clickhouse/client', 'chdb'] },
  functions: { folders: ['core', 'adapters', 'functions'], packages: ['*'] },
  local: { folders: ['core', 'adapters', 'functions', 'local'], packages: ['*'] },
  bin: { folders: ['core', 'adapters', 'local', 'bin'], packages: ['*'] },
  // The CDK app deploys the functions: it may read what they declare (their metric names).
  cdk: { folders: ['core', 'functions', 'cdk'], packages: ['*'] },
};

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
  for (const top of ['core', 'adapters', 'functions', 'local', 'bin', 'cdk']) {
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

  it('a core file importing an adapter or AWS would be caught', () => {
    expect(layerOf('core/scatter/gather.ts')).toBe('core');
    expect(layerOf('adapters/aws/sigv4.ts')).toBe('adapters/aws');
    const core = LAYERS.core!;
    expect(core.folders.includes('adapters')).toBe(false);
    expect(core.packages.some((p) => '@aws-sdk/client-lambda'.startsWith(p))).toBe(false);
  });
});
