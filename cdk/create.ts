// From CDK context to a stack: find the topology file, validate it and the deploy options, build the
// stack and (unless `-c nag=false`) attach cdk-nag's AwsSolutions checks. cdk/app.ts and the tests share
// this path, so what the tests assert is what `cdk synth` produces.
import { resolve } from 'node:path';
import { Validations, type App } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { loadTopology } from '../core/config/load.js';
import { PROJECT_ROOT } from './bundling.js';
import { parseDeployOptions } from './deploy-options.js';
import { ChScatterStack } from './stack.js';

export const CONFIG_ENV = 'CH_SCATTER_CONFIG';
export const DEFAULT_CONFIG = 'examples/topology.aws.json';

/**
 * The topology file: $CH_SCATTER_CONFIG when set (it names a deliberate choice in the shell), else the
 * `config` context (`-c config=path`, or cdk.json's default). Relative paths are from the project root,
 * where cdk.json lives and `cdk` runs.
 */
export function configPath(app: App, env: NodeJS.ProcessEnv = process.env): string {
  const fromEnv = env[CONFIG_ENV]?.trim();
  const fromContext = app.node.tryGetContext('config') as unknown;
  const chosen = fromEnv || (typeof fromContext === 'string' && fromContext.trim()) || DEFAULT_CONFIG;
  return resolve(PROJECT_ROOT, chosen);
}

export function createChScatter(app: App, env: NodeJS.ProcessEnv = process.env): ChScatterStack {
  const topology = loadTopology(configPath(app, env));
  const options = parseDeployOptions((k) => app.node.tryGetContext(k));
  const stack = new ChScatterStack(app, options.stackName, {
    topology,
    options,
    description: `ch-scatter for ClickHouse cluster ${topology.cluster}: ${topology.shards.length} shard functions behind one coordinator`,
    // Deploy where the CLI's credentials point (cdk deploy / --profile); synthesis stays account-agnostic.
    env: { account: env.CDK_DEFAULT_ACCOUNT, region: env.CDK_DEFAULT_REGION },
  });
  // A violation that is not acknowledged (with its reason) interrupts synthesis.
  if (options.nag) Validations.of(app).addPlugins(new AwsSolutionsChecks(app, { verbose: true, writeSuppressionsToCloudFormation: true }));
  return stack;
}
