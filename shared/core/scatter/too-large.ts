// A shard whose partial is over the Lambda response limit (6 MB), or whose request Lambda refused
// as over its request limit, makes the whole answer a 413
// TOO_LARGE naming the shard: the same query would be too large on every replica and on every
// retry, so it is neither a partial answer (the rows of that shard would be silently missing) nor
// a 504 INCOMPLETE_RESULT (nothing was slow). The client has to aggregate, filter or LIMIT.
import { ScatterError } from '../errors.js';
import type { ShardOutcome } from './call-shard.js';

export function tooLargeError(
  outcomes: readonly ShardOutcome[],
  what: 'query' | 'GLOBAL subquery',
  details?: Record<string, unknown>,
): ScatterError | undefined {
  const big = outcomes.filter((o) => o.code === 'TOO_LARGE');
  if (big.length === 0) return undefined;
  const first = big[0]!;
  const which = big.length === 1 ? `shard ${first.shard}` : `shards ${big.map((o) => o.shard).join(', ')}`;
  // The shard's own message ("shard result of N bytes exceeds ..."), without its advice: ours follows.
  const detail = (first.message ?? '')
    .replace(/^replica \d+ \([a-z]+\): /, '')
    .split('; replica ')[0]!
    .replace(/; aggregate or LIMIT on the shard$/, '');
  if (/Request(Entity)?TooLargeException/.test(first.message ?? '')) {
    return new ScatterError(
      'TOO_LARGE',
      `the ${what}'s request to ${which} is larger than a Lambda request may be (6 MB): ${detail}. ` +
        'Ship less GLOBAL data (filter the subquery, select fewer columns) or shorten the query',
      details ? { details } : {},
    );
  }
  return new ScatterError(
    'TOO_LARGE',
    `the ${what}'s partial result from ${which} is larger than a shard function may return (Lambda's 6 MB response limit): ${detail}. ` +
      'Aggregate (GROUP BY), filter, or add a LIMIT so each shard returns less',
    details ? { details } : {},
  );
}
