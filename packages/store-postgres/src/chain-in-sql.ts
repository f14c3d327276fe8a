import { hash } from 'node:crypto';
import { type AuditRecord, canonicalRecordText, GENESIS_HASH } from '@countersign/core/audit';
import { LedgerError } from '@countersign/core/ledger';
import { auditEventJson, integer, text } from '@countersign/core/store-kit';
import type { QueryResultRow } from 'pg';
import { sqlState } from './errors.ts';
import { type PreparedStatement, preparedStatement } from './prepared-statement.ts';

/**
 * A record's canonical text (what its hash covers) with the two values that depend on
 * the chain cut out: text = beforePrev + prevHash + beforeSeq + seq + afterSeq. The
 * database fills them in from the head it reads under the chain's lock, so the lock
 * is held for one statement and COMMIT, never across a round trip to this process.
 */
export interface RecordTextParts {
  beforePrev: string;
  beforeSeq: string;
  afterSeq: string;
  /**
   * SHA-256 (hex) of the parts joined around the probe values, as this process hashes
   * them. The chaining statement hashes the same join and refuses to insert on any
   * difference, so a database that turns the text into other bytes (a session whose
   * client_encoding is not UTF8) fails the transaction BEFORE its COMMIT, which is sent
   * right behind the insert: the hashes `fillChained` checks arrive only after it.
   */
  probeHash: string;
}

const PREV_KEY = ',"prevHash":"';
const SEQ_KEY = ',"seq":';
// Two probes of different lengths: the cut must reproduce the text for both.
const PROBE = { prevHash: 'a'.repeat(64), seq: 1 };
const CHECK = { prevHash: 'b'.repeat(64), seq: 4_503_599_627_370_497 };

/**
 * `record`'s text parts, from core's own canonical text (never a second encoder). The
 * top-level prevHash is the last `,"prevHash":"` (only `detail`, sorted before it, can
 * nest objects), and the `,"seq":` after it is the top-level one (only strings and a
 * number follow, in which an unescaped `"` cannot occur). The cut is then checked
 * against the text for other values; a record it does not reproduce throws (and so fails
 * its write) rather than being chained on a hash the verifier would not recompute.
 */
export function recordTextParts(record: AuditRecord): RecordTextParts {
  const probe = canonicalRecordText(PROBE.prevHash, PROBE.seq, record);
  const prev = probe.lastIndexOf(`${PREV_KEY}${PROBE.prevHash}"`);
  const seq = prev < 0 ? -1 : probe.indexOf(`${SEQ_KEY}${PROBE.seq},`, prev);
  const parts =
    seq < 0
      ? undefined
      : {
          beforePrev: probe.slice(0, prev + PREV_KEY.length),
          beforeSeq: probe.slice(prev + PREV_KEY.length + PROBE.prevHash.length, seq + SEQ_KEY.length),
          afterSeq: probe.slice(seq + SEQ_KEY.length + String(PROBE.seq).length),
          probeHash: hash('sha256', probe, 'hex'),
        };
  if (parts === undefined || joinParts(parts, CHECK.prevHash, CHECK.seq) !== canonicalRecordText(CHECK.prevHash, CHECK.seq, record)) {
    throw new LedgerError('corrupt_record', 'audit record text does not split around prevHash and seq');
  }
  return parts;
}

export function joinParts(parts: RecordTextParts, prevHash: string, seq: number): string {
  return parts.beforePrev + prevHash + parts.beforeSeq + String(seq) + parts.afterSeq;
}

/**
 * The CTEs `head` (the chain's last record) and `chained` (each record of `input`, in order
 * `n`, given its seq, prev_hash and hash from the one before it: $5 is the genesis hash).
 * One text for both statements below, so the hash rule cannot differ between them.
 */
function chainedFromHead(table: string): string {
  return `head AS MATERIALIZED (
      SELECT seq, hash FROM ${table} ORDER BY seq DESC LIMIT 1
    ), chained (n, seq, prev_hash, hash) AS (
      SELECT 0::bigint, COALESCE((SELECT seq FROM head), 0::bigint), NULL::text, COALESCE((SELECT hash FROM head), $5::text)
      UNION ALL
      SELECT i.n, c.seq + 1, c.hash,
        encode(sha256(convert_to(i.before_prev || c.hash || i.before_seq || (c.seq + 1)::text || i.after_seq, 'UTF8')), 'hex')
      FROM chained c JOIN input i ON i.n = c.n + 1
    )`;
}

/**
 * The INSERT of the `chained` rows. A record whose probe ($7, $8 in place of prev_hash and
 * seq) does not hash to the probe hash computed here gets a NULL hash, which the NOT NULL
 * column refuses: the split of the record's text is checked in the database.
 */
function insertChained(table: string): string {
  return `INSERT INTO ${table} (seq, prev_hash, hash, event)
    SELECT c.seq, c.prev_hash,
      CASE WHEN encode(sha256(convert_to(i.before_prev || $7::text || i.before_seq || $8::text || i.after_seq, 'UTF8')), 'hex') = i.probe_hash
        THEN c.hash END,
      i.event
    FROM chained c JOIN input i ON i.n = c.n
    RETURNING seq, prev_hash, hash`;
}

/**
 * Chains and inserts records in ONE statement: reads the head (in this statement's
 * snapshot, taken after the caller's lock statement returned, so it sees every earlier
 * holder's commit), then seq = head + 1, 2, … and hash = SHA-256 of the joined text,
 * each linked to the one before, in the order given. $1-$3 the parts, $4 the events as
 * stored (each of these a column joined by U+001F, see `chainInsertParams`), $5 the genesis hash, $6 the parts' probe hashes, $7 and $8 the probe's
 * prevHash and seq. Returns each row's seq, prev_hash and hash.
 *
 * A row whose probe the database hashes otherwise than this process is inserted with a
 * NULL hash: the NOT NULL column refuses it (23502), the transaction aborts, and the
 * COMMIT pipelined behind it commits nothing (see `insertRefused`).
 */
export function chainInsertStatement(table: string): PreparedStatement {
  const split = (param: string) => `string_to_array(${param}::text, E'\\x1f')`;
  return preparedStatement(`
    WITH RECURSIVE input AS MATERIALIZED (
      SELECT * FROM unnest(${split('$1')}, ${split('$2')}, ${split('$3')}, ${split('$4')}::json[], ${split('$6')})
        WITH ORDINALITY AS u (before_prev, before_seq, after_seq, event, probe_hash, n)
    ), ${chainedFromHead(table)}
    ${insertChained(table)}`);
}

/**
 * `chainInsertStatement` for records of which some are conditional: $9 is one flag per
 * record (joined like the other columns), the name of a transaction-local setting, or
 * empty for a record appended unconditionally. A record whose flag is set is chained
 * only if an earlier statement of this transaction set that setting to 'y' (a write
 * that took effect, see `WRITTEN_COLUMN` in ledger-sql.ts); the others take no seq.
 * So a write and its records go out with COMMIT in one round trip, nothing waiting for
 * the write's answer. Returns each inserted row's seq, prev_hash, hash and `given_n`
 * (its 1-based position among the records given).
 */
export function chainInsertIfStatement(table: string): PreparedStatement {
  const split = (param: string) => `string_to_array(${param}::text, E'\\x1f')`;
  return preparedStatement(`
    WITH RECURSIVE given AS MATERIALIZED (
      SELECT * FROM unnest(${split('$1')}, ${split('$2')}, ${split('$3')}, ${split('$4')}::json[], ${split('$6')}, ${split('$9')})
        WITH ORDINALITY AS u (before_prev, before_seq, after_seq, event, probe_hash, flag, given_n)
    ), input AS MATERIALIZED (
      SELECT g.*, row_number() OVER (ORDER BY g.given_n) AS n FROM given g
      WHERE COALESCE(g.flag, '') = '' OR current_setting(g.flag, true) = 'y'
    ), ${chainedFromHead(table)}, inserted AS (
      ${insertChained(table)}
    )
    SELECT ins.seq, ins.prev_hash, ins.hash, i.given_n
    FROM inserted ins JOIN chained c ON c.seq = ins.seq JOIN input i ON i.n = c.n`);
}

/**
 * The statement's parameters. Each per-record column goes as ONE text, its values joined
 * by U+001F, which JSON text never holds raw (JSON.stringify, and so core's canonical
 * text, escapes every control character): pg would otherwise write each as an array
 * literal, escaping every quote of the JSON, and the server would parse that back
 * (measured: 2.4 → 0.8 µs of this process per record). A value that holds it anyway is
 * refused here, never chained on a split the database would get wrong.
 */
export function chainInsertParams(records: readonly AuditRecord[], parts: readonly RecordTextParts[]): unknown[] {
  return [
    joinColumn(parts.map((p) => p.beforePrev)),
    joinColumn(parts.map((p) => p.beforeSeq)),
    joinColumn(parts.map((p) => p.afterSeq)),
    joinColumn(records.map(auditEventJson)),
    GENESIS_HASH,
    joinColumn(parts.map((p) => p.probeHash)),
    PROBE.prevHash,
    String(PROBE.seq),
  ];
}

const SEPARATOR = '\x1f';

export function joinColumn(values: readonly string[]): string {
  for (const value of values) {
    if (value.includes(SEPARATOR)) throw new LedgerError('corrupt_record', 'audit record text holds a raw U+001F: not JSON text, nothing was chained');
  }
  return values.join(SEPARATOR);
}

/**
 * The chaining insert's error as the store reports it: a NULL hash (the probe check
 * above) means the database hashes record text otherwise than core, and nothing was
 * chained; any other error is the database's own.
 */
export function insertRefused(error: unknown): unknown {
  if (sqlState(error) !== '23502') return error;
  return new LedgerError('corrupt_record', 'the database hashes audit record text otherwise than core (is client_encoding UTF8?): nothing was chained', {
    cause: error,
  });
}

/**
 * Fills each record's seq, prevHash and hash in from the inserted rows, checking that
 * they form a chain and that each hash is SHA-256 of the record's text as core writes it
 * (`parts`, proven to rejoin into core's text by `recordTextParts`). These rows arrive
 * after the COMMIT was sent, so this is the second line: a database that encodes the text
 * differently is stopped before it, by the statement's probe check. `records` are
 * mutated: they are the batch's own copies.
 */
export function fillChained(records: AuditRecord[], parts: readonly RecordTextParts[], rows: readonly QueryResultRow[]): AuditRecord[] {
  if (rows.length !== records.length) throw new LedgerError('corrupt_record', `audit insert returned ${rows.length} of ${records.length} records`);
  const sorted = rows.map((row) => ({ seq: integer(row, 'seq'), prevHash: text(row, 'prev_hash'), hash: text(row, 'hash') })).sort((a, b) => a.seq - b.seq);
  sorted.forEach((row, i) => {
    const record = records[i]!;
    const before = sorted[i - 1];
    // The first one links to the head the statement read (or is the genesis record).
    const linked = before === undefined ? row.seq > 1 || row.prevHash === GENESIS_HASH : row.seq === before.seq + 1 && row.prevHash === before.hash;
    if (!linked || hash('sha256', joinParts(parts[i]!, row.prevHash, row.seq), 'hex') !== row.hash) {
      throw new LedgerError('corrupt_record', `audit record ${row.seq} was chained by the database with a hash this process does not compute`);
    }
    record.seq = row.seq;
    record.prevHash = row.prevHash;
    record.hash = row.hash;
  });
  return records;
}

/**
 * `fillChained` for `chainInsertIfStatement`'s rows: fills in the records the statement
 * inserted (by `given_n`) and returns them, in chain order; records whose condition was
 * not met are left as they were and are not returned.
 */
export function fillChainedIf(records: AuditRecord[], parts: readonly RecordTextParts[], rows: readonly QueryResultRow[]): AuditRecord[] {
  const given = rows.map((row) => integer(row, 'given_n')).sort((a, b) => a - b);
  if (given.some((n, i) => n < 1 || n > records.length || given[i - 1] === n)) {
    throw new LedgerError('corrupt_record', 'audit insert returned records that were not given');
  }
  return fillChained(
    given.map((n) => records[n - 1]!),
    given.map((n) => parts[n - 1]!),
    rows,
  );
}
