// Build the real stack (cdk/create.ts, the path `cdk synth` takes) from a topology written to a temp file.
// Bundling is skipped with CDK's own context flag `aws:cdk:bundling-stacks` = [] (the flag `cdk deploy
// --exclusively` uses to bundle only selected stacks): the NodejsFunctions still point at the real
// handler files, but esbuild does not run, which keeps each synthesis well under a second. Real
// bundling is covered by test/infra/synth-cli.test.ts, which runs `cdk synth` itself.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { PROJECT_ROOT } from '../../cdk/bundling.js';
import { createChScatter } from '../../cdk/create.js';
import type { ChScatterStack } from '../../cdk/stack.js';

export const SKIP_BUNDLING = { 'aws:cdk:bundling-stacks': [] as string[] };

// CDK's built-in CloudFormation schema validation makes each synthesis ~5x slower here. It still runs,
// and must report nothing, in synth-cli.test.ts (the real `cdk synth`); these in-process tests skip it.
process.env.CDK_VALIDATION ??= 'false';

const dir = mkdtempSync(join(tmpdir(), 'ch-scatter-infra-'));
let n = 0;
// Temp configs and cloud assemblies (given an outdir, CDK does not leave cdk.outXXXX dirs in /tmp).
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The AWS example config, parsed as JSON (tests derive variants from it). */
export function awsExample(): Record<string, any> {
  return JSON.parse(readFileSync(join(PROJECT_ROOT, 'examples', 'topology.aws.json'), 'utf8'));
}

export function writeConfig(config: unknown): string {
  const file = join(dir, `topology-${n++}.json`);
  writeFileSync(file, JSON.stringify(config, null, 2));
  return file;
}

export interface Built {
  app: App;
  stack: ChScatterStack;
  template: Template;
}

/** Build without nag (nag.test.ts runs it explicitly) unless the context says otherwise. */
export function build(config: unknown, context: Record<string, unknown> = {}): Built {
  const app = new App({ outdir: join(dir, `out-${n}`), context: { ...SKIP_BUNDLING, nag: false, config: writeConfig(config), ...context } });
  const stack = createChScatter(app, {});
  return { app, stack, template: Template.fromStack(stack) };
}

export type Resources = Record<string, { Type: string; Properties?: any; [k: string]: any }>;

export function resourcesOf(template: Template, type: string): Resources {
  return template.findResources(type) as Resources;
}

/** Logical id of the one resource of `type` whose id starts with `prefix` (construct path based). */
export function logicalId(template: Template, type: string, prefix: string): string {
  const ids = Object.keys(resourcesOf(template, type)).filter((id) => id.startsWith(prefix));
  if (ids.length !== 1) throw new Error(`expected one ${type} starting with ${prefix}, found ${ids.join(', ') || 'none'}`);
  return ids[0]!;
}

/**
 * A template string value with its deploy-time parts shown as placeholders: Fn::Join is joined, a Ref
 * becomes `<Ref:Id>`, a GetAtt `<GetAtt:Id.Attr>`. Lets a test JSON.parse an environment variable that
 * CDK had to render with tokens inside.
 */
export function render(v: unknown): string {
  if (typeof v === 'string') return v;
  const o = v as Record<string, any>;
  if (o?.['Fn::Join']) {
    const [sep, parts] = o['Fn::Join'] as [string, unknown[]];
    return parts.map(render).join(sep);
  }
  if (o && typeof o.Ref === 'string') return `<Ref:${o.Ref}>`;
  if (o && Array.isArray(o['Fn::GetAtt'])) return `<GetAtt:${o['Fn::GetAtt'].join('.')}>`;
  throw new Error(`cannot render ${JSON.stringify(v)}`);
}
