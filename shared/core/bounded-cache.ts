// The one cache of the core: a Map that holds at most `max` entries and, when full, forgets the
// entry put in first. Oldest-first rather than least-recently-used: a lookup stays one Map.get on
// the merge's hot path (no reordering), and every entry cached here is cheap to build again.
// Every cache whose keys a query can vary (type texts, function names, SQL) must be one of these.

export class BoundedCache<K, V> {
  readonly #entries = new Map<K, V>();

  constructor(readonly max: number) {
    if (!(max >= 1)) throw new Error(`a bounded cache holds at least 1 entry, got ${max}`);
  }

  get size(): number {
    return this.#entries.size;
  }

  get(key: K): V | undefined {
    return this.#entries.get(key);
  }

  has(key: K): boolean {
    return this.#entries.has(key);
  }

  /** Store `value` as the newest entry, forgetting the oldest when the cache is full. */
  set(key: K, value: V): void {
    if (!this.#entries.delete(key) && this.#entries.size >= this.max) this.#entries.delete(this.#entries.keys().next().value as K);
    this.#entries.set(key, value);
  }

  /** The cached value, or `make(key)` stored and returned (a throw stores nothing). */
  getOrSet(key: K, make: (key: K) => V): V {
    if (this.#entries.has(key)) return this.#entries.get(key) as V;
    const value = make(key);
    this.set(key, value);
    return value;
  }

  /** The keys, oldest first. */
  keys(): IterableIterator<K> {
    return this.#entries.keys();
  }

  delete(key: K): void {
    this.#entries.delete(key);
  }
}
