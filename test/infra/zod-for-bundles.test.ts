// The Lambda bundles get zod through functions/common/zod-for-bundles.mjs (esbuild aliases in
// cdk/bundling.ts): zod's entry without its translations and JSON Schema code. Bundled here with the
// same aliases, it must export everything else zod does, and schemas built from it must answer
// exactly as zod's own (same results, same English messages), or the bundles would behave
// differently from what the tests run.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { build } from 'esbuild';
import * as zod from 'zod';
import { PROJECT_ROOT, ZOD_ALIASES } from '../../cdk/bundling.js';

const DROPPED = ['core', 'locales', 'toJSONSchema', 'fromJSONSchema'];
const dir = mkdtempSync(join(tmpdir(), 'ch-scatter-zod-'));
let lite: Record<string, unknown> & { z: typeof zod.z };

beforeAll(async () => {
  const out = join(dir, 'zod.mjs');
  const r = await build({
    stdin: { contents: "export * from 'zod'; export { z } from 'zod';", resolveDir: PROJECT_ROOT, loader: 'js' },
    bundle: true,
    platform: 'node',
    format: 'esm',
    alias: ZOD_ALIASES,
    outfile: out,
    metafile: true,
    logLevel: 'silent',
  });
  // What the bundle carries (files esbuild read but shook out have no bytes in it): zod's classic
  // API and English, none of its other locales.
  const inputs = Object.entries(Object.values(r.metafile.outputs)[0]!.inputs)
    .filter(([, v]) => v.bytesInOutput > 0)
    .map(([f]) => f);
  expect(inputs.some((f) => f.endsWith('zod/v4/locales/en.js'))).toBe(true);
  expect(inputs.filter((f) => /zod\/v4\/locales\/(?!en\.js)/.test(f))).toEqual([]);
  lite = await import(pathToFileURL(out).href);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('zod for the bundles', () => {
  it('exports what zod exports, less the translations and JSON Schema code', () => {
    const want = Object.keys(zod)
      .filter((k) => !DROPPED.includes(k) && k !== 'default')
      .sort();
    expect(Object.keys(lite).sort()).toEqual(want);
    expect(Object.keys(lite.z).sort()).toEqual(
      Object.keys(zod.z)
        .filter((k) => !DROPPED.includes(k))
        .sort(),
    );
  });

  it('parses and reports errors as zod does, in English', () => {
    const make = (z: typeof zod.z) =>
      z.discriminatedUnion('ok', [
        z.object({ ok: z.literal(true), n: z.number().int().nonnegative(), tags: z.array(z.string()).max(2), at: z.iso.datetime().optional() }),
        z.object({ ok: z.literal(false), kind: z.enum(['a', 'b']), why: z.custom<string>((v) => typeof v === 'string', 'a reason') }),
      ]);
    const inputs: unknown[] = [
      { ok: true, n: 3, tags: [] },
      { ok: true, n: -1, tags: ['x', 'y', 'z'], at: 'yesterday' },
      { ok: true, n: 'x', tags: [] },
      { ok: false, kind: 'c', why: 1 },
      { ok: 'x' },
      null,
      'str',
    ];
    for (const input of inputs) {
      const a = make(zod.z).safeParse(input);
      const b = make(lite.z).safeParse(input);
      expect(b.success).toBe(a.success);
      expect(b.error?.issues).toEqual(a.error?.issues);
    }
    expect(make(lite.z).safeParse({ ok: true, n: 'x', tags: [] }).error?.issues[0]?.message).toBe('Invalid input: expected number, received string');
  });
});
