// Weighted slots, exactly as ClickHouse's Distributed engine builds them: each shard index
// repeated `weight` times, in config order. A row goes to slots[h mod slots.length].

export function buildSlots(shards: ReadonlyArray<{ weight: number }>): number[] {
  if (shards.length === 0) throw new Error('buildSlots: no shards');
  const slots: number[] = [];
  shards.forEach((s, i) => {
    if (!Number.isInteger(s.weight) || s.weight < 1) throw new Error(`buildSlots: shard ${i} has weight ${s.weight}; weights are positive integers`);
    for (let k = 0; k < s.weight; k++) slots.push(i);
  });
  return slots;
}

/** The slot for an unsigned 64-bit sharding value. */
export function slotOf(slots: readonly number[], h: bigint): number {
  return slots[Number(h % BigInt(slots.length))]!;
}
