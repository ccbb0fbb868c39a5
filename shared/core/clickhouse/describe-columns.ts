// A local table's columns as `SELECT *` returns them (its ordinary columns, in DDL order: no
// MATERIALIZED, ALIAS or EPHEMERAL one), read with DESCRIBE TABLE on one engine. The plan spells
// `*` out with them (shared/core/scatter/table-columns.ts); the startup check compares every shard's.
import type { ClickHouseAccess } from './port.js';
import { backquote } from '../sql/quote.js';

export interface TableColumn {
  name: string;
  type: string;
}

const ORDINARY = new Set(['', 'DEFAULT']);

export async function describeColumns(access: ClickHouseAccess, local: string): Promise<TableColumn[]> {
  const dot = local.indexOf('.');
  const r = await access.query(`DESCRIBE TABLE ${backquote(local.slice(0, dot))}.${backquote(local.slice(dot + 1))}`);
  return (r.rows as { name: string; type: string; default_type?: string }[])
    .filter((c) => ORDINARY.has(c.default_type ?? ''))
    .map((c) => ({ name: c.name, type: c.type }));
}
