// What kind of statement an interface request holds, read with the project's one lexer. Reads are
// SELECT (distributed or catalog), SHOW DATABASES / TABLES / CREATE TABLE, DESCRIBE and EXISTS [DATABASE]; INSERT ...
// FORMAT writes through the router; every other statement that would change something is 164
// READONLY (ch-scatter is a read-only view of the cluster), and the rest is 48 NOT_IMPLEMENTED.
import { tokenize, type Token } from '../sql/lexer.js';
import { ChHttpError } from './exception.js';

export interface TableName {
  database?: string;
  table: string;
}

export type Statement =
  | { kind: 'select' }
  | { kind: 'showDatabases'; like?: string; format?: string }
  | { kind: 'showTables'; database?: string; like?: string; format?: string }
  | { kind: 'describe'; table: TableName; format?: string }
  | { kind: 'exists'; table: TableName; format?: string }
  | { kind: 'existsDatabase'; database: string; format?: string }
  | { kind: 'showCreate'; table: TableName; format?: string }
  | { kind: 'killQuery'; queryId: string; format?: string }
  | { kind: 'insert'; table: TableName; columns?: string[]; format: string; dataOffset: number };

const WRITES = new Set([
  'CREATE',
  'DROP',
  'ALTER',
  'TRUNCATE',
  'RENAME',
  'OPTIMIZE',
  'SYSTEM',
  'GRANT',
  'REVOKE',
  'DELETE',
  'UPDATE',
  'ATTACH',
  'DETACH',
  'EXCHANGE',
  'UNDROP',
  'BACKUP',
  'RESTORE',
  'KILL',
  'SET',
  'USE',
  'INSERT',
]);

/** Statements ClickHouse has that read, but ch-scatter does not answer. */
const OTHER_STATEMENTS = new Set(['EXPLAIN', 'CHECK', 'WATCH']);

class Reader {
  i = 0;
  constructor(
    readonly toks: Token[],
    readonly src: string,
  ) {}
  peek(): Token {
    return this.toks[this.i]!;
  }
  kw(...words: string[]): boolean {
    const t = this.peek();
    if (t.type === 'ident' && words.includes(t.upper)) {
      this.i++;
      return true;
    }
    return false;
  }
  expectKw(word: string): void {
    if (!this.kw(word)) throw this.syntax(`Expected ${word}`);
  }
  op(o: string): boolean {
    const t = this.peek();
    if (t.type === 'op' && t.text === o) {
      this.i++;
      return true;
    }
    return false;
  }
  name(what: string): string {
    const t = this.peek();
    if (t.type !== 'ident' && t.type !== 'qident') throw this.syntax(`Expected ${what}`);
    this.i++;
    return t.text;
  }
  tableName(): TableName {
    const first = this.name('a table name');
    if (this.op('.')) return { database: first, table: this.name('a table name') };
    return { table: first };
  }
  string(what: string): string {
    const t = this.peek();
    if (t.type !== 'string') throw this.syntax(`Expected ${what}`);
    this.i++;
    return t.text;
  }
  /** `[FORMAT name] [;]` then the end. */
  tail(): string | undefined {
    const format = this.kw('FORMAT') ? this.name('a format name') : undefined;
    this.op(';');
    if (this.peek().type !== 'eof') throw this.syntax('Expected end of query');
    return format;
  }
  syntax(what: string): ChHttpError {
    const t = this.peek();
    return new ChHttpError(62, `Syntax error: failed at position ${t.start + 1} ('${this.src.slice(t.start, t.start + 20)}'): ${what}`);
  }
}

/** The statement's kind; throws 62 / 164 / 48 for what is not answered. */
export function classify(text: string): Statement {
  const head = /^\s*(?:--[^\n]*\n\s*|\/\*[\s\S]*?\*\/\s*)*([A-Za-z]+)/.exec(text)?.[1]?.toUpperCase();
  if (head === 'SELECT' || head === 'WITH' || /^\s*\(/.test(text)) return { kind: 'select' };
  if (head === 'INSERT') return insertStatement(text);
  if (head === 'KILL' && /^\s*KILL\s+QUERY\b/i.test(text)) return killStatement(text);
  if (head && WRITES.has(head)) throw new ChHttpError(164, `Cannot execute query in readonly mode: ch-scatter answers reads only (${head} is not one)`);
  if (head && OTHER_STATEMENTS.has(head))
    throw new ChHttpError(48, `${head} is not supported by ch-scatter's ClickHouse interface (docs/clients.md lists what is answered)`);
  if (head !== 'SHOW' && head !== 'DESCRIBE' && head !== 'DESC' && head !== 'EXISTS')
    throw new ChHttpError(
      62,
      `Syntax error: failed at position 1 ('${text.trim().slice(0, 20)}'): Expected one of: SELECT, WITH, INSERT, SHOW, DESCRIBE, EXISTS`,
    );
  const r = readerOf(text);
  if (r.kw('SHOW')) {
    if (r.kw('DATABASES')) {
      const like = r.kw('LIKE') ? r.string('a LIKE pattern') : undefined;
      return { kind: 'showDatabases', ...(like !== undefined ? { like } : {}), ...opt('format', r.tail()) };
    }
    if (r.kw('TABLES')) {
      const database = r.kw('FROM', 'IN') ? r.name('a database name') : undefined;
      const like = r.kw('LIKE') ? r.string('a LIKE pattern') : undefined;
      return { kind: 'showTables', ...opt('database', database), ...opt('like', like), ...opt('format', r.tail()) };
    }
    if (r.kw('CREATE')) {
      r.kw('TABLE');
      const table = r.tableName();
      return { kind: 'showCreate', table, ...opt('format', r.tail()) };
    }
    throw new ChHttpError(
      48,
      `SHOW ${r.peek().text} is not supported by ch-scatter's ClickHouse interface (SHOW DATABASES, SHOW TABLES and SHOW CREATE TABLE are)`,
    );
  }
  if (r.kw('DESCRIBE', 'DESC')) {
    r.kw('TABLE');
    const table = r.tableName();
    return { kind: 'describe', table, ...opt('format', r.tail()) };
  }
  r.expectKw('EXISTS');
  if (r.kw('DATABASE')) {
    const database = r.name('a database name');
    return { kind: 'existsDatabase', database, ...opt('format', r.tail()) };
  }
  if (r.kw('TEMPORARY')) r.expectKw('TABLE');
  else r.kw('TABLE');
  const table = r.tableName();
  return { kind: 'exists', table, ...opt('format', r.tail()) };
}

function opt<K extends string>(k: K, v: string | undefined): Partial<Record<K, string>> {
  return v === undefined ? {} : ({ [k]: v } as Record<K, string>);
}

/**
 * `INSERT INTO t [(c1, c2)] FORMAT name` followed by the data. Only the statement head is lexed (the
 * data may be anything); the data starts after the format name and the blanks up to the first newline.
 */
function insertStatement(text: string): Statement {
  const m = /^\s*INSERT\s+INTO\s+(?:TABLE\s+)?/i.exec(text);
  if (!m) throw new ChHttpError(62, 'Syntax error: expected INSERT INTO <table>');
  const fm = /\bFORMAT\s+([A-Za-z][A-Za-z0-9_]*)/i.exec(text.slice(m[0].length));
  if (!fm) throw new ChHttpError(48, 'INSERT is answered only as INSERT INTO <table> [(columns)] FORMAT JSONEachRow|CSV|TabSeparated with the rows after it');
  const headEnd = m[0].length + fm.index;
  const r = readerOf(text, text.slice(0, headEnd));
  r.expectKw('INSERT');
  r.expectKw('INTO');
  r.kw('TABLE');
  const table = r.tableName();
  let columns: string[] | undefined;
  if (r.op('(')) {
    columns = [r.name('a column name')];
    while (r.op(',')) columns.push(r.name('a column name'));
    if (!r.op(')')) throw r.syntax("Expected ')'");
  }
  if (r.peek().type !== 'eof') throw r.syntax('Expected FORMAT');
  let dataOffset = m[0].length + fm.index + fm[0].length;
  while (dataOffset < text.length && (text[dataOffset] === ' ' || text[dataOffset] === '\t' || text[dataOffset] === '\r')) dataOffset++;
  if (text[dataOffset] === '\n') dataOffset++;
  return { kind: 'insert', table, ...(columns ? { columns } : {}), format: fm[1]!, dataOffset };
}

/** The tokens of `lexed` (the statement, or its head), read against the whole text; a lexer error is ClickHouse's syntax error (62). */
function readerOf(text: string, lexed = text): Reader {
  try {
    return new Reader(tokenize(lexed), text);
  } catch (e) {
    throw new ChHttpError(62, (e as Error).message);
  }
}

/** `KILL QUERY WHERE query_id = '<id>' [SYNC | ASYNC | TEST] [FORMAT name]`: the form clients send to cancel one query. */
function killStatement(text: string): Statement {
  const r = readerOf(text);
  r.expectKw('KILL');
  r.expectKw('QUERY');
  const t = r.peek();
  if (!(r.kw('WHERE') && r.kw('QUERY_ID') && r.op('=')))
    throw new ChHttpError(48, `KILL QUERY is answered only as KILL QUERY WHERE query_id = '<id>' (position ${t.start + 1})`);
  const queryId = r.string('a query id');
  r.kw('SYNC', 'ASYNC', 'TEST');
  return { kind: 'killQuery', queryId, ...opt('format', r.tail()) };
}
