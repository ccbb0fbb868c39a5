// Which statements the TPUT pre-pass takes, and the reason it gives for the others.
import { describe, expect, it } from 'vitest';
import { parseTopology } from '../../../../shared/core/config/load.js';
import { tputEligibility } from '../../../../shared/core/plan/tput/shape.js';
import { roundBase } from '../../../../shared/core/plan/tput/rounds.js';
import { oneRoundRowCap } from '../../../../shared/core/plan/tput/one-round.js';
import { parseSelect } from '../../../../shared/core/sql/parse.js';
import { printSelect } from '../../../../shared/core/sql/print.js';

const topo = parseTopology({
  cluster: 'c',
  shards: [{ replicas: [{ url: 'http://a:8123' }] }, { replicas: [{ url: 'http://b:8123' }] }],
  tables: { 'db.t_dist': { local: 'db.t', shardingKey: { column: 'id', type: 'UInt64', function: 'identity' } } },
});
const check = (sql: string) => tputEligibility(parseSelect(sql), topo, 'deny');

describe('TPUT eligibility', () => {
  it.each([
    ['SELECT user, count() AS c FROM db.t_dist GROUP BY user ORDER BY c DESC, user LIMIT 10', 10],
    ['SELECT user, count() FROM db.t_dist GROUP BY user ORDER BY count() DESC LIMIT 3 OFFSET 4', 7],
    ['SELECT user, countIf(x > 1) AS c, avg(v) FROM db.t_dist WHERE d > 1 GROUP BY user ORDER BY c DESC LIMIT 2, 5', 7],
    ['SELECT lower(name) AS n, day, sum(bytes) AS s FROM db.t_dist PREWHERE ok GROUP BY n, day ORDER BY s DESC, n LIMIT 5', 5],
  ])('takes %s (k = %i)', (sql, k) => {
    const e = check(sql);
    expect(e.ok).toBe(true);
    if (e.ok) expect(e.shape.k).toBe(k);
  });

  it.each([
    ['SELECT user, count() AS c FROM db.t_dist GROUP BY user HAVING c > 1 ORDER BY c DESC LIMIT 10', /HAVING/],
    ['SELECT user, count() AS c FROM db.t_dist GROUP BY user ORDER BY c DESC LIMIT 10 WITH TIES', /WITH TIES/],
    ['SELECT user, count() AS c FROM db.t_dist GROUP BY user WITH TOTALS ORDER BY c DESC LIMIT 10', /TOTALS/],
    ['SELECT user, count() AS c FROM db.t_dist GROUP BY user ORDER BY c DESC LIMIT 1 BY user LIMIT 10', /LIMIT BY/],
    ['SELECT DISTINCT user, count() AS c FROM db.t_dist GROUP BY user ORDER BY c DESC LIMIT 10', /DISTINCT/],
    ['SELECT user, count(DISTINCT x) AS c FROM db.t_dist GROUP BY user ORDER BY c DESC LIMIT 10', /DISTINCT/],
    ['SELECT user, count() AS c FROM db.t_dist WHERE x IN (SELECT 1) GROUP BY user ORDER BY c DESC LIMIT 10', /subquery/],
    ['SELECT user, count() AS c FROM db.t_dist WHERE ts > now() - 60 GROUP BY user ORDER BY c DESC LIMIT 10', /now\(\)/],
    ['SELECT user, count() AS c FROM db.t_dist GROUP BY user ORDER BY c DESC LIMIT 20000', /LIMIT \+ OFFSET/],
    ['SELECT user, count() AS c FROM db.t_dist WHERE c > 0 GROUP BY user ORDER BY c DESC LIMIT 10', /alias/],
    ['SELECT user, count() AS c FROM db.t_dist GROUP BY 1 ORDER BY c DESC LIMIT 10', /position/],
    ['SELECT arrayJoin(tags) AS tag, count() AS c FROM db.t_dist GROUP BY tag ORDER BY c DESC LIMIT 10', /arrayJoin/],
    [
      "SELECT user, count() AS c FROM db.t_dist GROUP BY user ORDER BY c DESC LIMIT 10 SETTINGS max_rows_to_group_by = 5, group_by_overflow_mode = 'any'",
      /group_by_overflow_mode/,
    ],
  ])('leaves %s to every group', (sql, why) => {
    const e = check(sql);
    expect(e.ok).toBe(false);
    if (!e.ok) {
      expect(e.reason).toMatch(why);
      expect(e.topCount).toBe(true);
    }
  });

  it.each([
    'SELECT user, avg(v) AS a FROM db.t_dist GROUP BY user ORDER BY a DESC LIMIT 10',
    'SELECT user, count() AS c FROM db.t_dist GROUP BY user ORDER BY c ASC LIMIT 10',
    'SELECT user, count() AS c FROM db.t_dist GROUP BY user ORDER BY c DESC',
    'SELECT id, count() AS c FROM db.t_dist GROUP BY id ORDER BY c DESC LIMIT 10',
    'SELECT count() AS c FROM db.t_dist ORDER BY c DESC LIMIT 10',
  ])('is no top count over groups that span shards: %s', (sql) => {
    const e = check(sql);
    expect(e.ok).toBe(false);
    if (!e.ok) expect(e.topCount).toBe(false);
  });

  // What the two statements return is checked on chdb in test/integration/tput/round-sql.test.ts.
  it("the pre-pass round's base: the keys and the score per group, under the aliases the round reads", () => {
    const e = check('SELECT name, day, count() AS c, max(v) FROM db.t_dist WHERE v > 1 GROUP BY name, day ORDER BY c DESC, name LIMIT 3 OFFSET 1');
    if (!e.ok) throw new Error(e.reason);
    expect(printSelect(roundBase(e.shape))).toBe('SELECT name AS _tput_k0, day AS _tput_k1, count() AS _tput_s FROM db.t_dist WHERE v > 1 GROUP BY name, day');
    expect(oneRoundRowCap(4, 'tput')).toBe(10_000);
    expect(oneRoundRowCap(50, 'exact')).toBe(5000);
  });
});
