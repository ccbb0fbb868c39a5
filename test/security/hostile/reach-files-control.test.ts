// The control of reach-files.test.ts: chdb itself, in a process where no pinned adapter has opened
// the engine, reads a file a format setting names and writes the schema file another names. So the
// refusals there are ch-scatter's checks, not an engine that cannot.
import fs from 'node:fs';
import path from 'node:path';
import { Session } from 'chdb';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { tempDir } from '../../e2e/support.js';

const SECRET_TEXT = `FILE-SECRET-${process.pid}-${Date.now()}`;
let dir: string;
let engine: Session;

beforeAll(() => {
  dir = tempDir('reach-files-control');
  engine = new Session(path.join(dir, 'engine'));
});
afterAll(() => {
  engine?.close();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

const attempt = (sql: string, format: string): string => {
  try {
    return engine.query(sql, format);
  } catch (e) {
    return String((e as Error).message);
  }
};

it('chdb reads the file format_template_row names and writes the file output_format_schema names', () => {
  const secret = path.join(dir, 'secret.txt');
  fs.writeFileSync(secret, `${SECRET_TEXT} \${data}\n`);
  expect(attempt(`SELECT 1 AS x SETTINGS format_template_row = '${secret}'`, 'Template')).toContain(SECRET_TEXT);
  const target = path.join(dir, 'target.proto');
  attempt(`SELECT 1 AS x SETTINGS output_format_schema = '${target}'`, 'Protobuf');
  expect(fs.existsSync(target)).toBe(true);
});
