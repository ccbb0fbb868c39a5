// Where the coordinator finds its topology: CH_SCATTER_TOPOLOGY (the config JSON inline, what
// the CDK app sets) or CH_SCATTER_CONFIG (a file path, handy locally). Invalid config fails the
// invocation with every problem listed, never a half-read topology.
import { loadTopology, parseTopology, ConfigError } from '../../shared/core/config/load.js';
import type { Topology } from '../../shared/core/config/schema.js';

export function topologyFromEnv(env: NodeJS.ProcessEnv = process.env): Topology {
  const inline = env.CH_SCATTER_TOPOLOGY;
  if (inline) {
    let value: unknown;
    try {
      value = JSON.parse(inline);
    } catch (e) {
      throw new ConfigError([`$: CH_SCATTER_TOPOLOGY is not valid JSON: ${(e as Error).message}`]);
    }
    return parseTopology(value);
  }
  const file = env.CH_SCATTER_CONFIG;
  if (file) return loadTopology(file);
  throw new ConfigError(['$: no topology: set CH_SCATTER_TOPOLOGY (JSON) or CH_SCATTER_CONFIG (a file)']);
}
