import type { Pool, PoolClient, QueryResult, QueryResultRow } from 'pg';
import { LedgerError } from '@countersign/core/ledger';
import { coalesceWrites } from './coalesce-writes.ts';
import { isUnavailableError, toStoreError } from './errors.ts';
import type { PreparedStatement } from './prepared-statement.ts';
import { ReadGroups } from './read-group.ts';

/** Runs one statement: plain SQL text, or a named statement prepared once per connection. */
export type Query = <R extends QueryResultRow = QueryResultRow>(
  sql: string | PreparedStatement,
  params?: unknown[],
) => Promise<QueryResult<R>>;

/**
 * The pool plus the two ways the stores talk to it. Every error leaving here has
 * been through `toStoreError`, so outages surface as store_unavailable. Clients
 * that saw an error are destroyed rather than returned to the pool, so a dead
 * connection is never reused and the pool reconnects once the database is back.
 */
export class PgDatabase {
  readonly pool: Pool;
  #closed = false;
  #commits = 0;

  readonly #reads: ReadGroups;

  constructor(pool: Pool) {
    this.pool = pool;
    this.#reads = new ReadGroups(pool);
  }

  /** One statement on any pooled connection; a single statement is its own transaction. */
  readonly query: Query = async (sql, params) => {
    this.#assertOpen();
    try {
      return typeof sql === 'string'
        ? await this.pool.query(sql, params)
        : await this.pool.query({ name: sql.name, text: sql.text, values: params ?? [] });
    } catch (error) {
      throw toStoreError(error);
    }
  };

  /**
   * A short read by key, grouped with the other reads of this turn of the event loop on
   * one connection and one socket write (ReadGroups). Its own statement and snapshot, as
   * with `query`; never for writes or long reads.
   */
  readonly read: Query = async (sql, params) => {
    this.#assertOpen();
    return this.#reads.read(sql, params) as never;
  };

  /**
   * Durable commits so far: transactions committed by `transaction`, plus single-statement
   * writes sent through `write` (each its own transaction). Reads are not counted.
   */
  get commits(): number {
    return this.#commits;
  }

  /** `query` for a statement that writes: it commits on its own, and is counted in `commits`. */
  readonly write: Query = async <R extends QueryResultRow = QueryResultRow>(sql: string | PreparedStatement, params?: unknown[]) => {
    const result = await this.query<R>(sql, params);
    this.#commits++;
    return result;
  };

  /** Runs `fn` inside BEGIN … COMMIT on one connection; any error rolls back. */
  async transaction<T>(fn: (query: Query) => Promise<T>): Promise<T> {
    return this.transactionWithTail(async (query) => ({ result: await fn(query) }));
  }

  /**
   * `transaction` whose `fn` may leave its last statements in flight (`tail`): COMMIT is
   * sent right behind them, in the same round trip on a pipelined connection (in the same
   * socket write, see coalesceWrites), and the transaction succeeds only if the tail
   * succeeded AND the server answered COMMIT. A failed tail aborts the transaction on the
   * server, so the COMMIT behind it commits nothing (PostgreSQL answers it ROLLBACK,
   * checked below); the tail's error is thrown.
   */
  async transactionWithTail<T>(fn: (query: Query) => Promise<{ result: T; tail?: Promise<unknown> | undefined }>): Promise<T> {
    this.#assertOpen();
    let client: PoolClient;
    try {
      client = await this.pool.connect();
    } catch (error) {
      throw toStoreError(error);
    }
    // pg-pool removes its own listener while a client is checked out; without one,
    // a connection dropped between two of our queries would crash the process.
    let connectionError: unknown;
    const onError = (error: unknown) => {
      connectionError = error;
    };
    client.on('error', onError);
    const query: Query = (sql, params) => {
      // Statements sent in the same tick leave in one socket write (one round trip, one wake-up of the server).
      coalesceWrites(client);
      return typeof sql === 'string' ? client.query(sql, params) : client.query({ name: sql.name, text: sql.text, values: params ?? [] });
    };
    let releaseError: Error | undefined;
    try {
      // BEGIN is not awaited before `fn` starts: on a pipelined connection its first
      // statements go out in the same round trip. They still run after BEGIN (one
      // connection runs statements in the order sent). BEGIN itself only fails with the
      // connection, which takes every later statement, and COMMIT, with it.
      const begun = query('BEGIN').then(
        () => undefined,
        (error: unknown) => ({ error }),
      );
      let out: { result: T; tail?: Promise<unknown> | undefined };
      try {
        out = await fn(query);
      } catch (error) {
        // The cause is the failed BEGIN if there was one.
        throw (await begun)?.error ?? error;
      }
      // Sent before BEGIN's answer is awaited: a transaction whose statements are all in
      // its tail (an audit append) is then one round trip.
      const committing = query('COMMIT');
      // Settled either way before we look at the others' outcomes: no stray rejection.
      committing.catch(() => {});
      const failed = await begun;
      if (failed !== undefined) {
        out.tail?.catch(() => {});
        throw failed.error;
      }
      if (out.tail !== undefined) await out.tail;
      const { command } = await committing;
      // COMMIT of a transaction an error aborted answers ROLLBACK, not an error: never report that as written.
      if (command !== 'COMMIT') throw new LedgerError('store_unavailable', `postgres transaction not committed (server answered ${command})`);
      this.#commits++;
      return out.result;
    } catch (error) {
      // After an outage-class error (e.g. a client-side timeout with the query still in
      // flight) the connection is suspect: destroy it rather than wait on a ROLLBACK;
      // the server rolls back when the connection goes.
      releaseError =
        connectionError !== undefined || isUnavailableError(error) ? asError(error) : await rollback(client, error);
      throw toStoreError(error);
    } finally {
      client.off('error', onError);
      client.release(releaseError ?? (connectionError === undefined ? undefined : asError(connectionError)));
    }
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.pool.end();
  }

  #assertOpen(): void {
    if (this.#closed) throw new LedgerError('store_unavailable', 'postgres store is closed');
  }
}

/** Rolls back; returns an error (meaning: destroy the client) unless the connection is known good. */
async function rollback(client: PoolClient, cause: unknown): Promise<Error | undefined> {
  try {
    await client.query('ROLLBACK');
    return undefined;
  } catch {
    return asError(cause);
  }
}

function asError(value: unknown): Error {
  return value instanceof Error ? value : new Error(String(value));
}
