// The ClickHouse error code chdb (in this process, one fresh session) answers a statement with, or
// undefined when it runs: for checks that must refuse exactly what the engine refuses.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Session } from 'chdb';
import { afterAll } from 'vitest';

export function useChdbCode(tag: string): (sql: string) => Promise<number | undefined> {
  const dir = mkdtempSync(join(tmpdir(), `${tag}-`));
  const session = new Session(dir);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  return async (sql) => {
    try {
      await session.queryAsync(sql, { format: 'Null' });
      return undefined;
    } catch (e) {
      return Number(/Code: (\d+)/.exec(String(e))?.[1]);
    }
  };
}
