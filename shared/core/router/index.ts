// Direct-to-shard inserts (the sink): route JSONEachRow rows by the table's placement and write
// one batch per shard into the shard-local table.
export { routeRows, tableFor, type BadRow, type RoutedBatches, type RouteInput, type Row } from './route.js';
export { writeRouted, type GetAccess, type ReplicaWriteResult, type ShardWriteResult, type ShardWriteStatus, type WriteReport } from './write.js';
export { insertRows, type InsertOptions, type InsertResult } from './insert.js';
export { parseRowLine, quoteBigIntegers } from './json-lines.js';
export { checkBatch, insertBytes, type ByteInsert, type ByteRow } from './insert-data.js';
