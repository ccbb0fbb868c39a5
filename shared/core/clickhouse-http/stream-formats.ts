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

/** How to ask the shards for `format` so their parts concatenate; undefined: it does not. */
export function concatenatingFormats(format: string): { first: string; rest: string } | undefined {
  const rest = BARE[format.toLowerCase()];
  return rest === undefined ? undefined : { first: format, rest };
}
