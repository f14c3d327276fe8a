import type { Pool, PoolClient, QueryResult } from 'pg';
import { coalesceWrites } from './coalesce-writes.ts';
import { isUnavailableError, toStoreError } from './errors.ts';
import type { PreparedStatement } from './prepared-statement.ts';

/** Reads per group at most: bounds how long the last one waits behind the others. */
const MAX_GROUP = 32;

interface PendingRead {
  sql: string | PreparedStatement;
  params: unknown[] | undefined;
  resolve: (result: QueryResult) => void;
  reject: (error: unknown) => void;
}

/**
 * Point reads (one row by key) issued during one turn of the event loop go out together:
 * one pooled connection, one socket write, their answers pipelined back. Under load a
 * server handles several requests per turn (4 reads a turn at 16 clients in the HTTP
 * bench), and each statement on its own connection costs a write, a read and a wake-up
 * of a server process. Each read is still its own statement with its own Sync: its own
 * snapshot, and an error in one (a bad parameter) does not touch the others; only a lost
 * connection fails them all, as store_unavailable, and that connection is destroyed.
 *
 * For short reads only: they run one after the other on the server, so a long one would
 * hold up the rest of its group. Writes never go through here.
 */
export class ReadGroups {
  readonly #pool: Pool;
  #open: PendingRead[] | undefined;

  constructor(pool: Pool) {
    this.#pool = pool;
  }

  read(sql: string | PreparedStatement, params?: unknown[]): Promise<QueryResult> {
    return new Promise((resolve, reject) => {
      if (this.#open === undefined || this.#open.length >= MAX_GROUP) {
        const group: PendingRead[] = [];
        this.#open = group;
        // The check phase: after every request this turn's I/O callbacks started.
        setImmediate(() => {
          if (this.#open === group) this.#open = undefined;
          void this.#send(group);
        });
      }
      this.#open.push({ sql, params, resolve, reject });
    });
  }

  async #send(group: PendingRead[]): Promise<void> {
    let client: PoolClient;
    try {
      client = await this.#pool.connect();
    } catch (error) {
      const failure = toStoreError(error);
      for (const read of group) read.reject(failure);
      return;
    }
    // pg-pool removes its own listener while a client is checked out; without one, a
    // connection dropped mid-group would crash the process.
    let connectionError: unknown;
    const onError = (error: unknown) => {
      connectionError = error;
    };
    client.on('error', onError);
    coalesceWrites(client);
    const sent = group.map((read) =>
      typeof read.sql === 'string'
        ? client.query(read.sql, read.params)
        : client.query({ name: read.sql.name, text: read.sql.text, values: read.params ?? [] }),
    );
    const settled = await Promise.allSettled(sent);
    client.off('error', onError);
    const lost = connectionError ?? settled.find((s): s is PromiseRejectedResult => s.status === 'rejected' && isUnavailableError(s.reason))?.reason;
    client.release(lost === undefined ? undefined : lost instanceof Error ? lost : new Error(String(lost)));
    settled.forEach((outcome, i) => {
      const read = group[i]!;
      if (outcome.status === 'fulfilled') read.resolve(outcome.value);
      else read.reject(toStoreError(outcome.reason));
    });
  }
}
