// From CDK context to a stack: find the topology file, validate it and the deploy options, build the
// stack and (unless `-c nag=false`) attach cdk-nag's AwsSolutions checks. cdk/app.ts and the tests share
// this path, so what the tests assert is what `cdk synth` produces.
import { resolve } from 'node:path';
import { Validations, type App } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { ConfigError, loadTopology } from '../shared/core/config/load.js';
import type { Topology } from '../shared/core/config/schema.js';
import { PROJECT_ROOT } from './bundling.js';
import { type DeployOptions, DeployOptionsError, parseDeployOptions } from './deploy-options.js';
import { deployProblems } from './deploy-problems.js';
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

/**
 * The topology and the deploy options, or one ConfigError listing the problems of both (and, when
 * both parse, what would make them undeployable), so one run shows everything to fix.
 */
function loadInputs(app: App, env: NodeJS.ProcessEnv): { topology: Topology; options: DeployOptions } {
  const problems: string[] = [];
  let topology: Topology | undefined;
  let options: DeployOptions | undefined;
  try {
    topology = loadTopology(configPath(app, env));
  } catch (e) {
    if (!(e instanceof ConfigError)) throw e;
    problems.push(...e.problems);
  }
  try {
    options = parseDeployOptions((k) => app.node.tryGetContext(k));
  } catch (e) {
    if (!(e instanceof DeployOptionsError)) throw e;
    problems.push(...e.problems);
  }
  if (topology && options) problems.push(...deployProblems(topology, options));
  if (problems.length || !topology || !options) throw new ConfigError(problems);
  return { topology, options };
}

export function createChScatter(app: App, env: NodeJS.ProcessEnv = process.env): ChScatterStack {
  const { topology, options } = loadInputs(app, env);
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
