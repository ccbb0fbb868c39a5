// A ClickHouse type name read through the wrappers that leave its values' spelling alone: a literal of
// `LowCardinality(Nullable(UInt64))` is written as a literal of UInt64 (or NULL).

/** `Nullable(T)` / `LowCardinality(T)`, at any depth, -> T, with whether NULL is allowed. */
export function unwrapType(type: string): { inner: string; nullable: boolean } {
  let t = type.trim();
  let nullable = false;
  for (;;) {
    const m = /^(Nullable|LowCardinality)\s*\((.*)\)$/s.exec(t);
    if (!m) return { inner: t, nullable };
    if (m[1] === 'Nullable') nullable = true;
    t = m[2]!.trim();
  }
}

/** ClickHouse's integer types: group 1 is `U` for the unsigned ones, group 2 the width in bits. */
export const INTEGER_TYPE = /^(U?)Int(8|16|32|64|128|256)$/;
