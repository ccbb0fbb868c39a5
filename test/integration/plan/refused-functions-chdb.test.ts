// The refused-function list against ClickHouse's own function list (chdb): every name on it is a
// function or table function ClickHouse has, and every alias ClickHouse knows for a refused
// function is refused too (`hostname` for hostName, `user` for currentUser, ...), wherever it stands.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createEmbeddedAccess } from '../../../shared/adapters/clickhouse/embedded.js';
import type { ClickHouseAccess } from '../../../shared/core/clickhouse/port.js';
import { REFUSED_FUNCTIONS, refusalOf } from '../../../shared/core/plan/refused-functions.js';
import { planQueryWith } from '../../../shared/core/plan/index.js';
import { ScatterError } from '../../../shared/core/errors.js';
import { passThroughSplit, testTopology } from '../../unit/plan/fixtures.js';

let dir: string;
let ch: ClickHouseAccess;
let functions: { name: string; alias_to: string }[];
let tableFunctions: Set<string>;

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'refused-fns-'));
  ch = await createEmbeddedAccess({ path: dir });
  functions = (await ch.query('SELECT name, alias_to FROM system.functions')).rows as typeof functions;
  tableFunctions = new Set(((await ch.query('SELECT name FROM system.table_functions')).rows as { name: string }[]).map((r) => r.name.toLowerCase()));
}, 60_000);
afterAll(async () => {
  await ch?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

// Refused names this chdb build (ClickHouse 26.7) does not list: kept for the servers that have them.
const ABSENT_IN_CHDB: string[] = ['executablepool', 'filesystemfree']; // a table engine; the pre-22 name of filesystemUnreserved

const topo = testTopology();
const T = 'analytics.events_dist';

async function refused(sql: string): Promise<ScatterError | undefined> {
  try {
    await planQueryWith(sql, topo, {}, passThroughSplit);
    return undefined;
  } catch (e) {
    if (e instanceof ScatterError) return e;
    throw e;
  }
}

describe('refused functions, checked against system.functions', () => {
  it('every refused name is a ClickHouse function or table function', () => {
    const known = new Set([...functions.map((f) => f.name.toLowerCase()), ...tableFunctions]);
    // Names ClickHouse no longer has or that this build leaves out are still refused (older servers).
    const absent = [...REFUSED_FUNCTIONS.keys()].filter((n) => !known.has(n));
    expect(absent.sort()).toEqual(ABSENT_IN_CHDB);
  });

  it('the ones that read server state or stall, and every alias ClickHouse has for them, are refused in any clause', async () => {
    const named = [
      'getServerSetting',
      'getMergeTreeSetting',
      'hasColumnInTable',
      'hostName',
      'globalVariable',
      'uptime',
      'sleep',
      'sleepEachRow',
      'getSetting',
      'FQDN',
      'currentUser',
      'currentDatabase',
      'serverUUID',
      'version',
      'dictGet',
      'joinGet',
    ];
    const lower = new Set(named.map((n) => n.toLowerCase()));
    const aliases = functions.filter((f) => lower.has(f.alias_to.toLowerCase())).map((f) => f.name);
    expect(aliases).toEqual(expect.arrayContaining(['hostname', 'user', 'current_database']));
    for (const name of [...named, ...aliases]) {
      expect(refusalOf(name), name).toBeDefined();
      const e = await refused(`SELECT count() FROM ${T} WHERE sensor IN (SELECT toString(${name}('x')))`);
      expect(e?.code, name).toBe('UNSUPPORTED');
      expect(e?.message).toContain(`function ${name}() is not allowed`);
    }
  });

  it('ordinary functions pass (the list is not a net over everything)', async () => {
    for (const name of ['lower', 'toString', 'sum', 'round', 'timezone', 'toTimezone', 'port', 'queryString']) expect(refusalOf(name), name).toBeUndefined();
    expect(await refused(`SELECT lower(sensor) AS s FROM ${T}`)).toBeUndefined();
  });
});
