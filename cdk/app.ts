// `cdk synth` / `cdk deploy` entry (cdk.json: "npx tsx cdk/app.ts"). Config problems are printed one per
// line with their JSON path or context key, and synthesis stops with exit code 1.
import { App } from 'aws-cdk-lib';
import { ConfigError } from '../core/config/load.js';
import { createChScatter } from './create.js';
import { DeployOptionsError } from './deploy-options.js';
import { LocalOnlyConfigError } from './stack.js';
import { SizingError } from './sizing.js';

const app = new App();
try {
  createChScatter(app);
} catch (e) {
  if (e instanceof ConfigError || e instanceof DeployOptionsError || e instanceof LocalOnlyConfigError) {
    console.error(e.message);
  } else if (e instanceof SizingError) {
    console.error(`cannot size the functions: ${e.message}`);
  } else {
    throw e;
  }
  process.exit(1);
}
app.synth();
