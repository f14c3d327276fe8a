import { v7 } from 'uuid';

/**
 * The ids the server's gate gives proposals and approval requests: UUIDv7 (RFC 9562),
 * a millisecond timestamp then random bits, increasing within this process.
 *
 * Why not randomUUID: the stores index these ids in B-trees (SQLite's primary-key index,
 * Postgres' btree), and a random key lands every insert on a random leaf page. A batch
 * of N concurrent proposals then dirties N index pages, each written to the WAL and
 * fsynced: measured on SQLite at 16 clients, 21.7 → 16.1 KiB written per round trip
 * and about 25% more round trips per second. Time-ordered keys append to the rightmost
 * leaf. The ids are names, not credentials (every route checks the caller owns the call),
 * and the creation time they reveal is already in the record they name.
 */
export function timeOrderedId(): string {
  return v7();
}
