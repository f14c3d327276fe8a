/**
 * What the durable floor server writes (see http-floor-server.ts): the minimum durable
 * state call-bound authorization needs, one commit per step, nothing else (no gate, no
 * audit chain, no policy). Every promise settles only once its write is committed and
 * durable, as the store's do.
 */
export interface FloorStore {
  /** Commits the proposal (as received) and returns its new id. */
  propose(proposal: string): Promise<string>;
  /** Commits the proposal already consumed (one commit for both: propose-and-authorize) and returns its new id. */
  proposeConsumed(proposal: string): Promise<string>;
  /** Marks the proposal consumed: true for the one caller whose UPDATE changed exactly one row, false for every other. */
  consume(id: string): Promise<boolean>;
  /** Commits the result of a consumed proposal, once: true if exactly one row changed. */
  complete(id: string, result: string): Promise<boolean>;
  /** Durable commits so far (SQLite: group commits; Postgres: autocommitted statements). */
  commits(): number;
  /** Postgres only: CPU (µs) of the backends serving this floor (see backendCpuUs). */
  dbCpuUs?(): Promise<number | undefined>;
  close(): Promise<void>;
}
