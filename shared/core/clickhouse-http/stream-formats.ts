// The output formats whose answers concatenate: a part per shard, written one after another, reads
// as one answer. A format with a header (the *WithNames ones) is asked with it from the first
// shard and without it from the others, so the header is written once.
const BARE: Record<string, string> = {
  tabseparated: 'TabSeparated',
  tsv: 'TabSeparated',
  tabseparatedraw: 'TabSeparatedRaw',
  tsvraw: 'TabSeparatedRaw',
  tabseparatedwithnames: 'TabSeparated',
  tsvwithnames: 'TabSeparated',
  tabseparatedwithnamesandtypes: 'TabSeparated',
  tsvwithnamesandtypes: 'TabSeparated',
  csv: 'CSV',
  csvwithnames: 'CSV',
  csvwithnamesandtypes: 'CSV',
  jsoneachrow: 'JSONEachRow',
  jsonlines: 'JSONEachRow',
  ndjson: 'JSONEachRow',
  jsonstringseachrow: 'JSONStringsEachRow',
  jsoncompacteachrow: 'JSONCompactEachRow',
  jsoncompactstringseachrow: 'JSONCompactStringsEachRow',
  rowbinary: 'RowBinary',
  rowbinarywithnames: 'RowBinary',
  rowbinarywithnamesandtypes: 'RowBinary',
  native: 'Native',
};

/** Formats whose every 0x0A byte ends a row (TabSeparated escapes newlines, JSON lines hold none raw): parts may be interleaved there. */
const ROW_PER_LINE = new Set(['TabSeparated', 'JSONEachRow', 'JSONStringsEachRow', 'JSONCompactEachRow', 'JSONCompactStringsEachRow']);

/** The header lines a format's first part starts with. */
function headerLines(format: string): number {
  const f = format.toLowerCase();
  return f.endsWith('withnamesandtypes') ? 2 : f.endsWith('withnames') ? 1 : 0;
}

export interface PartFormats {
  /** The first queried shard's format (with the header). */
  first: string;
  /** The others' (bare rows). */
  rest: string;
  /** Set when parts may be interleaved at row ends: the first part's header lines, which go first. */
  lineRows?: { headerLines: number };
}

/** How to ask the shards for `format` so their parts concatenate; undefined: it does not. */
export function concatenatingFormats(format: string): PartFormats | undefined {
  const rest = BARE[format.toLowerCase()];
  if (rest === undefined) return undefined;
  return { first: format, rest, ...(ROW_PER_LINE.has(rest) ? { lineRows: { headerLines: headerLines(format) } } : {}) };
}
