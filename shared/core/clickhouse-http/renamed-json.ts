// The JSON formats' names, found by walking the engine's JSON (json-spans.ts): a row object's keys
// (JSON's data, JSONEachRow's lines, JSONColumns' columns), `meta`'s names, the WithNames header arrays.
// A value's text is never searched, so a string or a Map key that spells a stage alias stays as written.
import { jsonValues, stringText, type JsonNode } from './json-spans.js';
import { copyAlike, notRenamed, type Renamer, type Renaming } from './renaming.js';

type Obj = JsonNode & { kind: 'object' };

const entry = (o: JsonNode, name: string): JsonNode | undefined => (o.kind === 'object' ? o.entries.find((e) => e.name === name)?.value : undefined);

/** An object whose keys are the columns, in order (JSONColumns' of no rows has none). */
function keys(bytes: Buffer, o: JsonNode | undefined, names: string[], r: Renaming, empty = false): void {
  if (o?.kind !== 'object') throw notRenamed(names);
  if (empty && o.entries.length === 0) return;
  copyAlike(
    bytes,
    o.entries.map((e) => e.key),
    names,
    r.replace,
  );
}

/** `meta`: one {name, type} object per column; its types are the answer's. */
function meta(bytes: Buffer, m: JsonNode | undefined, names: string[], r: Renaming): void {
  if (m?.kind !== 'array') throw notRenamed(names);
  const slots = m.items.map((it) => entry(it, 'name'));
  const types = m.items.map((it) => entry(it, 'type'));
  if (slots.some((s) => s?.kind !== 'string') || types.some((t) => t?.kind !== 'string')) throw notRenamed(names);
  copyAlike(bytes, slots as JsonNode[], names, r.replace);
  r.types = types.map((t) => stringText(bytes, t!));
}

/** A header array of names (the WithNames formats' first line), or of types (their second). */
function strings(a: JsonNode | undefined, names: string[]): JsonNode[] {
  if (a?.kind !== 'array' || a.items.some((s) => s.kind !== 'string')) throw notRenamed(names);
  return a.items;
}

function values(bytes: Buffer, names: string[]): JsonNode[] {
  const v = jsonValues(bytes);
  if (!v) throw notRenamed(names);
  return v;
}

function oneObject(bytes: Buffer, names: string[]): Obj {
  const v = values(bytes, names);
  if (v.length !== 1 || v[0]!.kind !== 'object') throw notRenamed(names);
  return v[0] as Obj;
}

/** JSON and JSONStrings (rows as objects), JSONCompact and its kin (rows as arrays: only meta names them). */
const document =
  (rowsNamed: boolean): Renamer =>
  (bytes, names) => {
    const doc = oneObject(bytes, names);
    const r: Renaming = { replace: [] };
    meta(bytes, entry(doc, 'meta'), names, r);
    const data = entry(doc, 'data');
    if (data?.kind !== 'array') throw notRenamed(names);
    if (rowsNamed) {
      for (const row of data.items) keys(bytes, row, names, r);
      const totals = entry(doc, 'totals');
      if (totals) keys(bytes, totals, names, r);
      const extremes = entry(doc, 'extremes');
      if (extremes) for (const e of ['min', 'max']) keys(bytes, entry(extremes, e), names, r);
    }
    return r;
  };

/** JSONColumns: one key per column; JSONColumnsWithMetadata: meta, and data's (and totals' and extremes') keys. */
const columns: Renamer = (bytes, names) => {
  const r: Renaming = { replace: [] };
  keys(bytes, oneObject(bytes, names), names, r, true);
  return r;
};
const columnsWithMetadata: Renamer = (bytes, names) => {
  const doc = oneObject(bytes, names);
  const r: Renaming = { replace: [] };
  meta(bytes, entry(doc, 'meta'), names, r);
  keys(bytes, entry(doc, 'data'), names, r, true);
  const totals = entry(doc, 'totals');
  if (totals) keys(bytes, totals, names, r, true);
  const extremes = entry(doc, 'extremes');
  if (extremes) for (const e of ['min', 'max']) keys(bytes, entry(extremes, e), names, r, true);
  return r;
};

/** JSONEachRow and its spellings: an object per row. */
const eachRow: Renamer = (bytes, names) => {
  const r: Renaming = { replace: [] };
  for (const row of values(bytes, names)) keys(bytes, row, names, r);
  return r;
};

/** JSONObjectEachRow: one object, a row object per key. */
const objectEachRow: Renamer = (bytes, names) => {
  const r: Renaming = { replace: [] };
  for (const e of oneObject(bytes, names).entries) keys(bytes, e.value, names, r);
  return r;
};

/** The WithProgress formats: a line per object of one key (meta, row, totals, min, max, progress...); `rowsNamed` as in `document`. */
const withProgress =
  (rowsNamed: boolean): Renamer =>
  (bytes, names) => {
    const r: Renaming = { replace: [] };
    for (const line of values(bytes, names)) {
      if (line.kind !== 'object' || line.entries.length !== 1) throw notRenamed(names);
      const { name, value } = line.entries[0]!;
      if (name === 'meta') meta(bytes, value, names, r);
      else if (rowsNamed && ['row', 'totals', 'min', 'max'].includes(name)) keys(bytes, value, names, r);
    }
    return r;
  };

/** JSONCompactEachRowWithNames[AndTypes] and the Strings kin: a first line of names, then (with types) one of types. */
const compactWithNames =
  (typed: boolean): Renamer =>
  (bytes, names) => {
    const [head, second] = values(bytes, names);
    const r: Renaming = { replace: [] };
    copyAlike(bytes, strings(head, names), names, r.replace);
    if (typed) r.types = strings(second, names).map((t) => stringText(bytes, t));
    return r;
  };

export const JSON_RENAMERS: Record<string, Renamer> = {
  JSON: document(true),
  JSONStrings: document(true),
  JSONCompact: document(false),
  JSONCompactStrings: document(false),
  JSONColumns: columns,
  JSONColumnsWithMetadata: columnsWithMetadata,
  JSONEachRow: eachRow,
  JSONLines: eachRow,
  JSONL: eachRow,
  NDJSON: eachRow,
  JSONStringsEachRow: eachRow,
  PrettyJSONEachRow: eachRow,
  PrettyJSONLines: eachRow,
  PrettyNDJSON: eachRow,
  JSONObjectEachRow: objectEachRow,
  JSONEachRowWithProgress: withProgress(true),
  JSONStringsEachRowWithProgress: withProgress(true),
  JSONCompactEachRowWithProgress: withProgress(false),
  JSONCompactStringsEachRowWithProgress: withProgress(false),
  JSONCompactEachRowWithNames: compactWithNames(false),
  JSONCompactStringsEachRowWithNames: compactWithNames(false),
  JSONCompactEachRowWithNamesAndTypes: compactWithNames(true),
  JSONCompactStringsEachRowWithNamesAndTypes: compactWithNames(true),
};
