// The merger's share of ClickHouse's transfer limits (max_rows_to_transfer, transfer_overflow_mode):
// how many shard rows (groups, or rows of a row query) the coordinator accepts. 'throw' fails the
// query with TRANSFER_LIMIT, as before; 'break' keeps what fits, drops the rest and records why, so
// the runtime can label the answer partial (FinalResult.truncated). Which rows fit depends on
// arrival order under 'break' (as ClickHouse's 'break' depends on read order): that is why the
// answer must never be called complete.
import { ScatterError } from '../errors.js';

export type OverflowMode = 'throw' | 'break';

export class TransferBudget {
  private used = 0;
  private dropped = 0;
  /** One line per kind of cut, e.g. "groups: kept 5 of 9 ..." (filled by notes()). */
  private extra: string[] = [];
  constructor(
    private readonly max: number, // 0 = unlimited, as in ClickHouse
    private readonly mode: OverflowMode,
    private readonly what: string, // 'groups' | 'rows'
  ) {}

  /** Accept up to `n` more rows: returns how many fit (all of them unless 'break' cut them). */
  take(n: number): number {
    if (this.max <= 0) {
      this.used += n;
      return n;
    }
    if (this.used + n <= this.max) {
      this.used += n;
      return n;
    }
    if (this.mode === 'throw') {
      throw new ScatterError('TRANSFER_LIMIT', `the shards returned more than ${this.max} ${this.what} (maxRowsToTransfer)`);
    }
    const fit = Math.max(0, this.max - this.used);
    this.used += fit;
    this.dropped += n - fit;
    return fit;
  }

  /** A cut made elsewhere under 'break' (e.g. a distinct set that reached the limit). */
  note(line: string): void {
    if (!this.extra.includes(line)) this.extra.push(line);
  }

  /** Why the answer is incomplete; empty when nothing was dropped. */
  notes(): string[] {
    const out =
      this.dropped > 0
        ? [`${this.what}: kept ${this.used}, dropped ${this.dropped} beyond max_rows_to_transfer = ${this.max} (transfer_overflow_mode = 'break')`]
        : [];
    return [...out, ...this.extra];
  }
}
