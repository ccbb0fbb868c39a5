// The reach corpus on two clickhouse-server 18.16 shards (a local stack whose replicas are the
// servers): every forbidden read at every position, on every route, is refused before any shard
// function is asked, and the unconfigured table's row never comes back; a subquery over the
// configured table still runs in the final stage there; the file-naming settings and formats are
// refused on every route before any server is asked, and no file is read or written.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../../e2e/support.js';
import { fileCases, runFileCases } from './reach-files-corpus.js';
import { chHttp, useChServers } from '../../support/ch-servers.js';
import { DIST, LOCAL, reachCases } from './reach-corpus.js';
import { runCorpus, startReachStack, type ReachStack } from './reach-stack.js';

const servers = useChServers({ n: 2, portBase: 19470 });
const ROWS_PER_SHARD = 40;
let s: ReachStack;
let dir: string;

beforeAll(async () => {
  s = await startReachStack(
    servers.current.urls.map((url) => ({ replicas: [{ url }] })),
    undefined,
    `INSERT INTO ${LOCAL} SELECT concat('s-', toString(number)), concat('site-', toString(number % 3)), number FROM numbers(${ROWS_PER_SHARD})`,
    async (sql) => {
      for (const url of servers.current.urls) await chHttp(url, sql);
    },
  );
}, 180_000);

afterAll(async () => {
  await s?.stack.stop();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

describe('reach corpus on 18.16', () => {
  it('every forbidden read at every position on every route is refused before any shard is asked', async () => {
    const cases = reachCases();
    const problems = await runCorpus(s, cases);
    expect(problems.slice(0, 20), `${problems.length} of ${cases.length} cases`).toEqual([]);
  }, 600_000);

  it('a subquery over the configured table keeps working in the final stage', async () => {
    const sql = `SELECT count() AS c, (SELECT count() FROM ${DIST}) AS t FROM ${DIST}`;
    const before = s.payloads.length;
    const ch = await fetch(`${s.stack.url}/`, { method: 'POST', body: `${sql} FORMAT TSV` });
    expect(await ch.text()).toBe(`${2 * ROWS_PER_SHARD}\t${2 * ROWS_PER_SHARD}\n`);
    // The recorder sees the shards' requests: the corpus's zero is a measurement, not a blind spot.
    expect(s.payloads.length).toBeGreaterThan(before);
  });
});

describe('file-naming settings and formats on 18.16', () => {
  it('every route refuses them before any server is asked; nothing is read or written', async () => {
    dir = tempDir('reach-files-18');
    const text = `FILE-SECRET-18-${process.pid}`;
    const secret = path.join(dir, 'secret.txt');
    fs.writeFileSync(secret, `${text}\n`);
    let n = 0;
    const all = fileCases(secret, () => path.join(dir, `target-${++n}.proto`));
    expect(await runFileCases(s, all, text)).toEqual([]);
  }, 300_000);
});
