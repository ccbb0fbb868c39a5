// The ClickHouse interface's JSON bytes under the client's column names where the final stage named a
// later column of a taken name by a stage alias. ClickHouse's JSON writes each name at a line's start
// after tabs, and no value holds a raw newline, so a name found there at a row's depth is a name; where
// the count of them is not one per row (a nested Map's key at that depth) the answer is refused, not guessed at.
import { ScatterError } from '../../errors.js';
import { withAnswerNames, type FinalJson } from './final-output.js';

/** The formats whose bytes are renamed here. */
export const RENAMED_FORMATS: ReadonlySet<string> = new Set(['JSON']);

export function jsonWithAnswerNames(bytes: Buffer, names: string[]): Buffer {
  let text = bytes.toString('utf8');
  let doc: FinalJson & { rows?: number };
  try {
    doc = JSON.parse(text);
  } catch {
    throw notRenamed(names);
  }
  if (!Array.isArray(doc.meta) || !Array.isArray(doc.data)) throw notRenamed(names);
  withAnswerNames({ meta: doc.meta, data: [] }, names); // ClickHouse's 352 where their types differ
  const objects = doc.data.length + (doc.totals ? 1 : 0) + (doc.extremes ? 2 : 0);
  for (const [i, m] of doc.meta.entries()) {
    const name = names[i]!;
    if (m.name === name) continue;
    // A stage alias is a plain identifier; the client's name is written as ClickHouse writes it only when plain.
    if (!/^[A-Za-z_][A-Za-z0-9_.]*$/.test(name)) throw notRenamed(names);
    let n = 0;
    // A row's keys are indented three tabs (totals' two, extremes' three); a nested Map's keys deeper.
    text = text.replace(new RegExp(`(\\n\\t\\t\\t?)"${m.name}": `, 'g'), (_s, lead: string) => {
      n++;
      return `${lead}"${name}": `;
    });
    let inMeta = 0;
    text = text.replace(new RegExp(`(\\n\\t\\t\\t)"name": "${m.name}"(,?\\n)`, 'g'), (_s, lead: string, tail: string) => {
      inMeta++;
      return `${lead}"name": "${name}"${tail}`;
    });
    if (n !== objects || inMeta !== 1) throw notRenamed(names);
  }
  return Buffer.from(text, 'utf8');
}

export function notRenamed(names: string[]): ScatterError {
  const name = names.find((n, i) => names.indexOf(n) < i)!;
  return new ScatterError(
    'UNSUPPORTED',
    `two different columns both named ${name} are not supported in this output format on the general path (its final stage names each column by one alias, and ${[...RENAMED_FORMATS].join(', ')} is the only format whose bytes take the name back exactly); the JSON API answers them`,
  );
}
