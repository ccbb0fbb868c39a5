// `cdk synth` / `cdk deploy` entry (cdk.json: "npx tsx cdk/app.ts"). Config problems are printed one per
// line with their JSON path or context key, and synthesis stops with exit code 1.
import { App } from 'aws-cdk-lib';
import { ConfigError } from '../shared/core/config/load.js';
import { createChScatter } from './create.js';

const app = new App();
try {
  createChScatter(app);
} catch (e) {
  // Every problem with the topology or the deploy options arrives here as one ConfigError.
  if (!(e instanceof ConfigError)) throw e;
  console.error(e.message);
  process.exit(1);
}
app.synth();
