// The ClickHouse interface's queries running in this coordinator process, by query id, so that
// `KILL QUERY WHERE query_id = '...'` from the same user cancels one (Cube cancels this way). One
// registry per coordinator (functions/coordinator/deps.ts creates it), never module state. A Lambda
// container runs one request at a time, so there a KILL reaches only queries of its own container:
// docs/operations.md says what that means across invocations.

export interface RunningQuery {
  /** Fires when the query is killed. */
  readonly signal: AbortSignal;
  /** Whether it was killed (its answer is then 394 QUERY_WAS_CANCELLED, whatever the runtime made of the stop). */
  readonly killed: boolean;
  /** Leave the registry (the query ended). */
  done(): void;
}

export interface RunningQueries {
  start(queryId: string, user: string): RunningQuery;
  /** Cancel the query with this id if the user runs it: true when one was found. */
  kill(queryId: string, user: string): boolean;
}

export function createRunningQueries(): RunningQueries {
  const running = new Map<string, { user: string; abort: AbortController }[]>();
  return {
    start(queryId, user) {
      const entry = { user, abort: new AbortController() };
      const list = running.get(queryId) ?? [];
      list.push(entry);
      running.set(queryId, list);
      return {
        signal: entry.abort.signal,
        get killed() {
          return entry.abort.signal.aborted;
        },
        done() {
          const rest = (running.get(queryId) ?? []).filter((e) => e !== entry);
          if (rest.length > 0) running.set(queryId, rest);
          else running.delete(queryId);
        },
      };
    },
    kill(queryId, user) {
      const mine = (running.get(queryId) ?? []).filter((e) => e.user === user);
      for (const e of mine) e.abort.abort(new Error('killed by KILL QUERY'));
      return mine.length > 0;
    },
  };
}
